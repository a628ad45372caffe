import { Link } from 'react-router-dom';

export default function NotFoundRoute() {
  return (
    <div className="container page">
      <h1>No encontramos lo que buscas.</h1>
      <p>
        La página que buscas no existe o cambió de dirección. <Link to="/mi-club">Ir a Mi Club</Link>
      </p>
    </div>
  );
}
