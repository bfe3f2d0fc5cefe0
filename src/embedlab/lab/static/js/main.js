// Shows the simulation named in the URL's hash; each lives in its own module exporting render(root).
// The nav lists the pages /api/config names (lab/pages.py), in its order, with their titles.
// Before another page replaces it, the root gets a "leave" event: a page that polls or runs timers
// listens for it (root.addEventListener("leave", stop, { once: true })) and stops.
import { el } from "./dom.js";
import { config } from "./http.js";
import { plotly } from "./plot.js";

const { pages } = await config();
const names = Object.keys(pages);
document.getElementById("nav").replaceChildren(
  ...names.map((name) => el("a", { href: `#${name}`, "data-sim": name }, pages[name])));

async function show() {
  const name = names.includes(location.hash.slice(1)) ? location.hash.slice(1) : names[0];
  for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("active", a.dataset.sim === name);
  const root = document.getElementById("sim");
  root.dispatchEvent(new Event("leave"));
  root.replaceChildren();
  root.dataset.sim = name;
  root.dataset.ready = "false";
  const sim = await import(`./${name}.js`);
  if (root.dataset.sim !== name) return; // a later hashchange took the page while this one loaded
  const plots = sim.usesPlotly !== false;
  if (plots) plotly(); // in the background, alongside the page's first requests
  await sim.render(root);
  // plotly.min.js loads in the background (plot.js); a page is ready once its first plots are drawn
  // too. subtle: the page's own plot() calls waited on it first, so they have drawn by now.
  if (plots) await plotly().catch(() => null); // a failed load shows as the plots' own errors
  // subtle: a quick second hashchange can finish first; only the current one marks the page ready.
  if (root.dataset.sim === name) root.dataset.ready = "true";
}

window.addEventListener("hashchange", show);
show();
