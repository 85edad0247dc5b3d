"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { Dialog, DropdownMenu } from "radix-ui";
import { createContext, useContext, useEffect, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { ToastProvider } from "@/components/ui/toast";
import { useHydrated } from "@/components/ui/use-hydrated";
import { atLeast, type Role, roleLabel } from "@/lib/roles";
import type { RouterOutputs } from "@/trpc/outputs";
import { TRPCReactProvider, useTRPC } from "@/trpc/react";
import { NAV } from "./nav";

/** The signed-in member as `session.me` returns them; the service types the role as any string, the shell needs a console role. */
export type Me = Omit<RouterOutputs["session"]["me"], "role"> & { role: Role };

const MeContext = createContext<Me | null>(null);
export const useMe = () => useContext(MeContext)!;

export async function signOutNow(reason?: string) {
  await signOut({ redirect: false });
  window.location.assign(`/console/sign-in${reason ? `?${reason}=1` : ""}`);
}

/** The one console layout: navigation by role (sidebar on a laptop, a menu button on a phone or tablet). */
export function ConsoleShell({ me, children }: { me: Me; children: React.ReactNode }) {
  const path = usePathname();
  const items = NAV.filter((n) => atLeast(me.role, n.min));
  const active = (href: string) => (href === "/console" ? path === href : path.startsWith(href));
  return (
    <MeContext.Provider value={me}>
      <TRPCReactProvider>
        <ToastProvider>
          <SessionCheck path={path} />
          <div className="min-h-screen lg:flex">
            <a
              href="#main"
              className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:p-2"
            >
              Skip to content
            </a>
            <aside className="hidden w-60 shrink-0 border-r border-slate-200 bg-white lg:block">
              <div className="px-5 py-4">
                <Link href="/console" className="text-sm font-semibold uppercase tracking-wide text-indigo-600">
                  Bind Identity
                </Link>
                <p className="mt-1 truncate text-sm text-slate-600" title={me.organizationName}>
                  {me.organizationName}
                </p>
              </div>
              <nav aria-label="Console" className="px-3 pb-6">
                <ul className="space-y-0.5">
                  {items.map((n) => (
                    <li key={n.href}>
                      <Link
                        href={n.href}
                        aria-current={active(n.href) ? "page" : undefined}
                        className={`block rounded-md px-3 py-2 text-sm ${active(n.href) ? "bg-indigo-50 font-medium text-indigo-700" : "text-slate-700 hover:bg-slate-100"}`}
                      >
                        {n.label}
                      </Link>
                    </li>
                  ))}
                </ul>
              </nav>
            </aside>
            <div className="min-w-0 flex-1">
              <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/95 backdrop-blur">
                <div className="flex items-center gap-2 px-4 py-2.5 sm:gap-3 sm:px-6">
                  <NavMenu items={items} active={active} me={me} path={path} />
                  <Link href="/console" className="whitespace-nowrap text-sm font-semibold text-indigo-700 lg:hidden">
                    Bind Identity
                  </Link>
                  {me.environment === "sandbox" && <Badge tone="amber">Sandbox</Badge>}
                  <div className="ml-auto min-w-0">
                    <UserMenu me={me} />
                  </div>
                </div>
              </header>
              <main id="main" className="mx-auto max-w-6xl px-4 py-6 sm:px-6">
                <LiveAfterScript>{children}</LiveAfterScript>
              </main>
            </div>
          </div>
        </ToastProvider>
      </TRPCReactProvider>
    </MeContext.Provider>
  );
}

/**
 * Client-side navigation keeps the layout (and its server-side session check) mounted, so each
 * navigation, window focus and every minute asks the service again; a 401 (deactivated, password
 * changed, expired) sends the member to sign-in through the query client's error handler.
 */
function SessionCheck({ path }: { path: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  useQuery({ ...trpc.session.me.queryOptions(), refetchInterval: 60_000, refetchOnWindowFocus: true });
  // biome-ignore lint/correctness/useExhaustiveDependencies: asks again on every navigation (path), on purpose
  useEffect(() => {
    void qc.invalidateQueries({ queryKey: trpc.session.me.queryKey() });
  }, [path, qc, trpc]);
  return null;
}

/**
 * Below the `lg` breakpoint the navigation is one "Menu" button that opens the full list as a sheet
 * (Radix Dialog: focus moves to the current page's link, Escape or Close shuts it and focus returns
 * to the button). Choosing a page closes it, and so does any other navigation.
 */
function NavMenu({ items, active, me, path }: { items: typeof NAV; active: (href: string) => boolean; me: Me; path: string }) {
  const [open, setOpen] = useState(false);
  const content = useRef<HTMLDivElement>(null);
  const hydrated = useHydrated();
  // biome-ignore lint/correctness/useExhaustiveDependencies: closes on every navigation (path), on purpose
  useEffect(() => setOpen(false), [path]);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      {/* Disabled in the server's HTML: a tap before the script runs would open nothing and be lost. */}
      <Dialog.Trigger disabled={!hydrated} className="btn-secondary shrink-0 lg:hidden">
        <svg aria-hidden viewBox="0 0 20 20" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
          <path d="M3 5h14M3 10h14M3 15h14" />
        </svg>
        Menu
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-slate-900/40 lg:hidden" />
        <Dialog.Content
          ref={content}
          onOpenAutoFocus={(e) => {
            const current = content.current?.querySelector<HTMLElement>('[aria-current="page"]');
            if (current) {
              e.preventDefault();
              current.focus();
            }
          }}
          className="fixed inset-y-0 left-0 z-50 flex w-[min(20rem,calc(100vw-3rem))] flex-col overflow-y-auto bg-white shadow-xl focus:outline-none lg:hidden"
        >
          <div className="flex items-start justify-between gap-3 border-b border-slate-200 px-4 py-3">
            <div className="min-w-0">
              <Dialog.Title className="text-sm font-semibold text-indigo-700">Bind Identity console</Dialog.Title>
              <Dialog.Description className="mt-0.5 truncate text-sm text-slate-600">{me.organizationName}</Dialog.Description>
            </div>
            <Dialog.Close className="btn-secondary shrink-0">Close</Dialog.Close>
          </div>
          <nav aria-label="Console menu" className="px-3 py-3">
            <ul className="space-y-0.5">
              {items.map((n) => (
                <li key={n.href}>
                  <Link
                    href={n.href}
                    aria-current={active(n.href) ? "page" : undefined}
                    onClick={() => setOpen(false)}
                    className={`block rounded-md px-3 py-2.5 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400 ${active(n.href) ? "bg-indigo-50 font-medium text-indigo-700" : "text-slate-700 hover:bg-slate-100"}`}
                  >
                    {n.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/**
 * The pages' buttons and fields are disabled in the server's HTML and until the script has run: a
 * click before then would reach no handler and be lost, and typed text would be replaced. Links
 * keep working, and a fieldset without a legend names no group (role "none").
 */
function LiveAfterScript({ children }: { children: React.ReactNode }) {
  const hydrated = useHydrated();
  return (
    <fieldset disabled={!hydrated} role="none" className="min-w-0">
      {children}
    </fieldset>
  );
}

function UserMenu({ me }: { me: Me }) {
  const hydrated = useHydrated();
  return (
    <DropdownMenu.Root>
      {/* The accessible name starts with the visible text (the address), then says what the button opens. */}
      <DropdownMenu.Trigger disabled={!hydrated} className="btn-secondary max-w-full" aria-label={`${me.email}, account menu`}>
        <span className="min-w-0 truncate">{me.email}</span>
        <span aria-hidden>▾</span>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="end"
          sideOffset={6}
          className="z-50 min-w-56 rounded-md border border-slate-200 bg-white p-1 shadow-lg"
        >
          <DropdownMenu.Label className="px-2 py-1.5 text-xs text-slate-500">
            Signed in as <span className="font-medium text-slate-800">{roleLabel(me.role)}</span>
          </DropdownMenu.Label>
          <DropdownMenu.Label className="px-2 pb-1.5 text-xs text-slate-500">Organization {me.organizationId}</DropdownMenu.Label>
          <DropdownMenu.Separator className="my-1 h-px bg-slate-100" />
          <DropdownMenu.Item asChild className="cursor-pointer rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-slate-100">
            <Link href="/console/security">Security and sessions</Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item
            onSelect={() => void signOutNow()}
            className="cursor-pointer rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-slate-100"
          >
            Sign out
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** Shown instead of a page the member's role cannot use (the procedures refuse it too). */
export function RoleGate({ min, children }: { min: Role; children: React.ReactNode }) {
  const me = useMe();
  if (atLeast(me.role, min)) return <>{children}</>;
  return (
    <div role="alert" className="card mx-auto mt-10 max-w-md text-center">
      <h1 className="text-lg font-semibold">Not available to your role</h1>
      <p className="mt-2 text-sm text-slate-600">
        This page needs the <strong>{roleLabel(min)}</strong> role or higher; you are signed in as {roleLabel(me.role)}. Ask an admin of
        your organization.
      </p>
      <Link href="/console" className="btn-secondary mt-4">
        Back to the dashboard
      </Link>
    </div>
  );
}
