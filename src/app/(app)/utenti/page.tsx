import { UsersScreen } from "@/ui/screens/admin";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Utenti" };

export default async function UsersPage() {
  const session = await openScreen("/utenti", "amministratore");
  return (
    <Prefetched session={session} queries={(t) => [t.users.list.queryOptions(), t.audit.list.queryOptions({ limite: 25 })]}>
      <UsersScreen />
    </Prefetched>
  );
}
