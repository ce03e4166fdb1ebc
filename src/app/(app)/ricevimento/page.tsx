import { ReceivingScreen } from "@/ui/screens/receiving";

export const metadata = { title: "Ricevimento" };

export default function ReceivingPage() {
  return <ReceivingScreen />;
}
