import { OrdersScreen } from "@/ui/screens/orders";

export const metadata = { title: "Etichette ordini" };

export default function OrdersPage() {
  return <OrdersScreen />;
}
