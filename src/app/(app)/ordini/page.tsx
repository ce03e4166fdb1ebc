import { OrdersScreen } from "@/ui/screens/orders";

export const metadata = { title: "Ordini" };

export default function OrdersPage() {
  return <OrdersScreen />;
}
