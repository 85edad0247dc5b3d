export { dashboard } from "./dashboard";
export { DashboardView } from "./dashboard.schema";
