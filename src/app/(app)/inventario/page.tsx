import { InventoryScreen } from "@/ui/screens/inventory";

export const metadata = { title: "Inventario" };

export default function InventoryPage() {
  return <InventoryScreen />;
}
