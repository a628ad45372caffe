import './coming-soon.css';

type ComingSoonProps = { title: string; headingLevel?: 1 | 2 };

/** Placeholder for a section whose issue has not landed yet. */
export function ComingSoon({ title, headingLevel = 1 }: ComingSoonProps) {
  const Heading = headingLevel === 1 ? 'h1' : 'h2';
  return (
    <section className="coming-soon" aria-label={title}>
      <Heading className="coming-soon__title">{title}</Heading>
      <p className="coming-soon__badge">Próximamente</p>
      <p className="coming-soon__text">
        Estamos preparando esta sección. Muy pronto podrás usarla aquí.
      </p>
    </section>
  );
}
