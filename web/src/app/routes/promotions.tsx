import { PromotionsPage } from '@/features/content/components/promotions-page';
import { SimulatorForm } from '@/features/simulator/components/simulator-form';

/**
 * /promociones: the promotions, then the simulator. The accrual rates the promotions announce
 * are what the simulator computes, and it needs no session, so visitors can try it here too.
 */
export default function PromotionsRoute() {
  return (
    <PromotionsPage>
      <SimulatorForm />
    </PromotionsPage>
  );
}
