import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { TERMS_COPY as M } from '../messages';

export const TERMS_LOAD_FAILED = M.loadFailed;

interface TermsLoadFailureProps {
  onRetry: () => void;
  isRetrying: boolean;
}

/** What both terms screens show when the text could not be loaded: the reason and a retry. */
export function TermsLoadFailure({ onRetry, isRetrying }: TermsLoadFailureProps) {
  return (
    <>
      <Alert>{TERMS_LOAD_FAILED}</Alert>
      <Button variant="secondary" onClick={onRetry} isLoading={isRetrying}>
        {M.retry}
      </Button>
    </>
  );
}
