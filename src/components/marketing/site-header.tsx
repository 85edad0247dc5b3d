"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useId, useRef, useState } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";
import { Wordmark } from "./wordmark";

const LINKS = [
  { href: "/pricing", label: "Pricing" },
  { href: "/docs", label: "Docs" },
  { href: "/console/sign-in", label: "Sign in" },
] as const;

/**
 * The public site's header (landing page, pricing, sign-up, docs). On a laptop every link is in
 * one row; below the `sm` breakpoint the wordmark and "Sign up" stay in the row and the other
 * links fold into a menu button, so the header fits a 390 px phone without sideways scrolling.
 */
export function SiteHeader() {
  const path = usePathname();
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  // Disabled in the server's HTML: a tap before the script runs would open nothing and be lost.
  const hydrated = useHydrated();
  const current = (href: string) => (path === href || path.startsWith(`${href}/`) ? "page" : undefined);

  // A navigation closes the phone menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every path change, on purpose
  useEffect(() => setOpen(false), [path]);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        setOpen(false);
        buttonRef.current?.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);

  return (
    <header className="sticky top-0 z-40 border-b border-slate-200 bg-white/95 backdrop-blur">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:p-2"
      >
        Skip to content
      </a>
      <div className="mx-auto flex h-14 max-w-6xl items-center gap-2 px-4 sm:gap-6 sm:px-6">
        <Link
          href="/"
          aria-label="Bind Identity, home"
          className="shrink-0 rounded focus-visible:outline-2 focus-visible:outline-indigo-500"
        >
          <Wordmark />
        </Link>
        <nav aria-label="Site" className="ml-auto hidden items-center gap-1 sm:flex">
          {LINKS.map((l) => (
            <Link
              key={l.href}
              href={l.href}
              aria-current={current(l.href)}
              className={`rounded-md px-3 py-1.5 text-sm font-medium ${current(l.href) ? "text-indigo-700" : "text-slate-700 hover:bg-slate-100 hover:text-slate-900"}`}
            >
              {l.label}
            </Link>
          ))}
        </nav>
        <div className="ml-auto flex items-center gap-2 sm:ml-0">
          <Link href="/signup" className="btn-primary whitespace-nowrap">
            Sign up
          </Link>
          <button
            ref={buttonRef}
            type="button"
            disabled={!hydrated}
            className="inline-flex h-9 w-9 items-center justify-center rounded-md border border-slate-300 bg-white text-slate-700 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-500 sm:hidden"
            aria-expanded={open}
            aria-controls={menuId}
            aria-label={open ? "Close menu" : "Open menu"}
            onClick={() => setOpen((o) => !o)}
          >
            <svg
              viewBox="0 0 20 20"
              className="h-5 w-5"
              aria-hidden="true"
              fill="none"
              stroke="currentColor"
              strokeWidth="1.8"
              strokeLinecap="round"
            >
              {open ? <path d="M5 5l10 10M15 5L5 15" /> : <path d="M3 6h14M3 10h14M3 14h14" />}
            </svg>
          </button>
        </div>
      </div>
      <nav id={menuId} aria-label="Site (compact)" hidden={!open} className="border-t border-slate-100 bg-white sm:hidden">
        <ul className="mx-auto max-w-6xl px-2 py-2">
          {LINKS.map((l) => (
            <li key={l.href}>
              <Link
                href={l.href}
                aria-current={current(l.href)}
                onClick={() => setOpen(false)}
                className={`block rounded-md px-3 py-2.5 text-base font-medium ${current(l.href) ? "bg-indigo-50 text-indigo-700" : "text-slate-700 hover:bg-slate-100"}`}
              >
                {l.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
    </header>
  );
}
