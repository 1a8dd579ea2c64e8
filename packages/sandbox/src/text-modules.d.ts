// Files the browser entry's build imports as text (src/pyodide/browser-sources.ts).
declare module '*.py' {
  const text: string;
  export default text;
}
declare module '*.mjs' {
  const text: string;
  export default text;
}
