export function NotFoundPage() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        No console page at this address. <a href="#/">Go to the dashboard</a>.
      </p>
    </>
  );
}
