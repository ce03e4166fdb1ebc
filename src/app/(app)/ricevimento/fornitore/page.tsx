import { ReceivingBySupplierScreen } from "@/ui/screens/receiving-by-supplier";

export const metadata = { title: "Ricevimento per fornitore" };

export default function ReceivingBySupplierPage() {
  return <ReceivingBySupplierScreen />;
}
