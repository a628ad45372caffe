import { useState, type ImgHTMLAttributes, type ReactNode } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { isSafeLink } from '@/lib/site-links';
import { CONTENT_COPY as M } from '../messages';

import './content-page.css';

type ContentStatesProps<T> = {
  query: { data: T[] | undefined; isError: boolean; isFetching: boolean; refetch: () => unknown };
  loadingLabel: string;
  empty: string;
  failure: string;
  children: (items: T[]) => ReactNode;
};

/** Loading, failure (with a retry), empty and the list, the same way on every content screen. */
export function ContentStates<T>({ query, loadingLabel, empty, failure, children }: ContentStatesProps<T>) {
  if (query.data) {
    if (query.data.length === 0) {
      return (
        <p className="content-empty" role="status">
          {empty}
        </p>
      );
    }
    return <>{children(query.data)}</>;
  }
  if (query.isError) {
    return (
      <div className="content-failure">
        <Alert>{failure}</Alert>
        <Button variant="secondary" onClick={() => void query.refetch()} isLoading={query.isFetching}>
          {M.retry}
        </Button>
      </div>
    );
  }
  return <Spinner label={loadingLabel} />;
}

/** The generic illustration shown when a content image is missing or cannot be loaded. */
export const FALLBACK_IMAGE = '/images/contenido.svg';

/** The image URL as given when it is safe to use, else the generic illustration. */
export function safeImage(url: string | undefined): string {
  return url && isSafeLink(url) ? url : FALLBACK_IMAGE;
}

/** An image of the content service that falls back to the generic illustration once if it fails. */
export function ContentImage({ src, alt, ...rest }: ImgHTMLAttributes<HTMLImageElement> & { src: string; alt: string }) {
  const [failed, setFailed] = useState(false);
  return (
    <img
      {...rest}
      src={failed ? FALLBACK_IMAGE : safeImage(src)}
      alt={alt}
      onError={() => {
        if (!failed) setFailed(true);
      }}
    />
  );
}

/** Paragraphs of a plain text answer separated by blank lines. */
export function Paragraphs({ text }: { text: string }) {
  return (
    <>
      {text
        .split(/\n\s*\n/)
        .map((paragraph) => paragraph.trim())
        .filter(Boolean)
        .map((paragraph, index) => (
          <p key={index}>{paragraph}</p>
        ))}
    </>
  );
}
