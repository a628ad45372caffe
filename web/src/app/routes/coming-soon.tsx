import { ComingSoon } from '@/components/ui/coming-soon';

/** A route of spec section 2 whose issue has not landed yet. */
export default function ComingSoonRoute({ title }: { title: string }) {
  return (
    <div className="container page">
      <ComingSoon title={title} />
    </div>
  );
}
