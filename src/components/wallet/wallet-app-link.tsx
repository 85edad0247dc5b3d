/** The same-device way in: a link the person's wallet app opens (an openid-credential-offer:// or openid4vp:// URI). */
export function WalletAppLink({ href }: { href: string }) {
  return (
    <a
      href={href}
      className="mt-3 inline-flex min-h-11 w-full items-center justify-center rounded-md bg-indigo-600 px-4 py-2 font-medium text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 sm:w-auto"
    >
      Open in wallet app
    </a>
  );
}
