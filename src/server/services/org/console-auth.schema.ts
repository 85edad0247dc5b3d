import { z } from "zod";

export const ChangeConsolePasswordInput = z.strictObject({
  currentPassword: z.string().min(1).max(200),
  newPassword: z.string().min(12, "use at least 12 characters").max(200),
});
