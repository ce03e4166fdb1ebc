import { ApiKeysScreen } from "@/ui/screens/admin";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Chiavi API" };

export default async function ApiKeysPage() {
  const session = await openScreen("/chiavi-api", "amministratore");
  return (
    <Prefetched session={session} queries={(t) => [t.apiKeys.list.queryOptions()]}>
      <ApiKeysScreen />
    </Prefetched>
  );
}
