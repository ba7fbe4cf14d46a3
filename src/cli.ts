// vscode-memory CLI (placeholder until the engine facade lands).
console.log(JSON.stringify({ ok: true }));
