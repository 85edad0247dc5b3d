export { DashboardView } from "./dashboard.schema";
export { dashboard } from "./dashboard";
