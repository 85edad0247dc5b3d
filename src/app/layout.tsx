import type { Metadata } from "next";
import { connection } from "next/server";
import "./globals.css";

export const metadata: Metadata = {
  title: "Bind Identity",
  description: "Identity verification and account binding for Antelope blockchain accounts.",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Render per request: the strict CSP (src/proxy.ts) allows only scripts carrying this request's
  // nonce, which Next adds to its own script tags; a page prerendered at build time would have none.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">{children}</body>
    </html>
  );
}
