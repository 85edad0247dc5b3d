// @openid4vc/utils (loaded by @openid4vc/oauth2 and openid4vci) sets zod's global error map when
// it loads (`z.config({ customError })`), which would change the words of every validation error
// the service answers, in every domain. Every wallet module imports this one before those
// libraries: it loads them once, then puts zod's own messages back.
import "@openid4vc/oauth2";
import { z } from "zod";

z.config({ customError: undefined });
