import { AlliancesPage } from '@/features/content/components/alliances-page';

/** /alianzas: partner (bank card) benefits. */
export default function AlliancesRoute() {
  return <AlliancesPage />;
}
