import { expect } from "vitest";
import { AppError } from "../errors";

/** The AppError a promise rejects with; fails the test when it resolves or rejects with anything else. */
export async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}
