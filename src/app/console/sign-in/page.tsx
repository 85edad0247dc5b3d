import type { Metadata } from "next";
import { Suspense } from "react";
import { SignInForm } from "./_components/sign-in-form";

export const metadata: Metadata = { title: "Sign in · Bind Identity console" };

export default function SignInPage() {
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-10">
      <div className="w-full max-w-sm">
        <p className="text-center text-sm font-semibold uppercase tracking-wide text-indigo-600">Bind Identity</p>
        <h1 className="mt-1 text-center text-2xl font-semibold tracking-tight">Sign in to the console</h1>
        <Suspense>
          <SignInForm />
        </Suspense>
      </div>
    </main>
  );
}
