import { useSyncExternalStore } from "react";

const never = () => () => undefined;

/**
 * False in the server's HTML and while React hydrates it, true once the page's script runs it.
 * A form whose fields are disabled until then cannot take text React would not see, nor a click
 * on a button whose handler is not attached yet (which would submit the form natively).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
