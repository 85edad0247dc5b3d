import type { Metadata } from "next";
import { ApiReference } from "@/components/docs/api-reference";

export const metadata: Metadata = { title: "API reference · Bind Identity" };

export default function DocsPage() {
  return <ApiReference />;
}
