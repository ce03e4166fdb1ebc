import { inTransaction } from "../../db/transaction";
import { adminProcedure, router } from "../../trpc/init";
import { createUserInput, listUsersOutput, setPasswordInput, updateUserInput, userOutput } from "./users.schemas";
import { createUser, listUsers, setUserPassword, updateUser } from "./users.service";

/** Users of the operator UI: administrators only, from the UI (the CLI creates the first ones). */
export const usersRouter = router({
  list: adminProcedure.output(listUsersOutput).query(async ({ ctx }) => ({ utenti: await listUsers(ctx.db) })),

  create: adminProcedure
    .input(createUserInput)
    .output(userOutput)
    .mutation(({ ctx, input }) => createUser(ctx.db, input)),

  update: adminProcedure
    .input(updateUserInput)
    .output(userOutput)
    .mutation(({ ctx, input }) => inTransaction(ctx.db, (tx) => updateUser(tx, ctx.actor, input))),

  setPassword: adminProcedure
    .input(setPasswordInput)
    .output(userOutput)
    .mutation(({ ctx, input }) => setUserPassword(ctx.db, input)),
});
