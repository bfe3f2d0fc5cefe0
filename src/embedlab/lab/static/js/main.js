// Shows the simulation named in the URL's hash; each lives in its own module with a render(root).
const modules = { size: "./size.js", geometry: "./geometry.js" };

async function show() {
  const name = location.hash.slice(1) in modules ? location.hash.slice(1) : "size";
  for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("active", a.dataset.sim === name);
  const root = document.getElementById("sim");
  root.replaceChildren();
  const sim = await import(modules[name]);
  await sim.render(root);
}

window.addEventListener("hashchange", show);
show();
