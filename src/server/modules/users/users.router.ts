import { adminProcedure, router } from "../../trpc/init";
import { createUserInput, listUsersOutput, setPasswordInput, updateUserInput, userOutput } from "./users.schemas";
import { createUser, listUsers, setUserPassword, updateUser } from "./users.service";
import { syncParse } from "../../lib/zod";

/** Users of the operator UI: administrators only, from the UI (the CLI creates the first ones). */
export const usersRouter = router({
  list: adminProcedure.output(syncParse(listUsersOutput)).query(async ({ ctx }) => ({ utenti: await listUsers(ctx.db) })),

  create: adminProcedure
    .input(syncParse(createUserInput))
    .output(syncParse(userOutput))
    .mutation(({ ctx, input }) => createUser(ctx.db, input, ctx.actor)),

  update: adminProcedure
    .input(syncParse(updateUserInput))
    .output(syncParse(userOutput))
    .mutation(({ ctx, input }) => updateUser(ctx.db, ctx.actor, input)),

  setPassword: adminProcedure
    .input(syncParse(setPasswordInput))
    .output(syncParse(userOutput))
    .mutation(({ ctx, input }) => setUserPassword(ctx.db, input, ctx.actor)),
});
