// Lookup: a token's row as bars, its place on a 2-D map of the theme groups picked, and one-hot × E.
import { el, field, fixed, select, checkbox, note, count, themePicker } from "./dom.js";
import { config, get, latest } from "./http.js";
import { bars, colour, labelPoints, plot, themeColour } from "./plot.js";

export async function render(root) {
  const [{ tables }, { limits, themes }] = await Promise.all([get("/api/tables"), config()]);
  const page = build(root, tables, limits.lookup, themes);
  const rowView = latest(() => loadRow(page), (r) => drawRow(page, r), page.status);
  const mapView = latest(() => loadMap(page), (r) => drawMap(page, r), page.status);
  page.pick = (word) => {
    if (!word || word === page.token.value) return;
    page.token.value = word;
    rowView(); mapView();
  };
  for (const input of [page.source, page.token]) input.addEventListener("change", () => { rowView(); mapView(); });
  page.normalize.addEventListener("change", mapView);
  page.pickThemes = mapView;
  await Promise.all([rowView(), mapView()]);
}

function build(root, tables, limits, themes) {
  const page = {
    themes,
    source: select("lookup-table", tables),
    token: el("input", { id: "lookup-token", value: "king", maxlength: limits.token }),
    normalize: checkbox("lookup-normalize"),
    picker: themePicker("lookup-themes", themes, () => page.pickThemes()), // the groups on the map
    status: el("div", { id: "lookup-status" }),
    chips: el("div", { id: "lookup-chips" }),
    rowCaption: el("p", { id: "lookup-row-caption", class: "stat" }),
    rowBars: el("div", { id: "lookup-bars", class: "plot" }),
    mapCaption: el("p", { id: "lookup-map-caption", class: "note" }),
    map: el("div", { id: "lookup-map", class: "plot" }),
    onehot: el("div", { id: "lookup-onehot" }),
    clickable: false,
  };
  root.append(
    el("h2", {}, "Lookup"),
    el("p", {}, "A token's embedding is row i of the table E, where i is the token's id: the layer reads that " +
      "row and does no arithmetic. Writing the id as a one-hot vector and multiplying it by E gives the same " +
      "numbers, which is why the lookup can be trained like a matrix. Rows of related words point in " +
      "related directions, which the map below shows for the groups of words ticked; function words such as " +
      "\"the\" keep apart from all of them. A token in none of the groups ticked is added to the map."),
    el("div", { class: "controls" }, field("table", page.source), field("token", page.token),
      field("normalise rows before the map", page.normalize)),
    page.chips, page.status, page.rowCaption, page.rowBars,
    el("h3", {}, "Themed words, projected to 2-D"), page.picker.node, page.mapCaption, page.map,
    el("h3", {}, "One-hot × E on a small vocabulary"), page.onehot);
  return page;
}

function loadRow(page) {
  const params = { table: page.source.value, token: page.token.value };
  return Promise.all([get("/api/lookup/row", params), get("/api/lookup/onehot", { ...params, dims: 8 })]);
}

const loadMap = (page) => get("/api/lookup/map", [["table", page.source.value], ["token", page.token.value],
  ["normalize", page.normalize.checked], ...page.picker.picked().map((theme) => ["themes", theme])]);

function drawRow(page, [r, view]) {
  page.rowCaption.textContent = `'${r.key}' is row ${count(r.index)} of ${count(r.vocab_size)}; ` +
    `its ${r.dim} values below, ‖E[${r.index}]‖ = ${fixed(r.norm, 4)}`;
  bars(page.rowBars, r.row, { color: r.row.map((v) => colour(v < 0 ? "warm" : "accent")),
    layout: { xaxis: { title: { text: "dimension" } }, yaxis: { title: { text: "value" } }, bargap: 0 } });
  drawOneHot(page, view);
}

async function drawMap(page, r) {
  const { coordinates, explained_variance_ratio: ratio } = r.projection;
  page.mapCaption.textContent = r.caption;
  const traces = r.theme_names.filter((theme) => r.themes.includes(theme)).map((theme) => {
    const at = r.themes.flatMap((th, i) => (th === theme ? [i] : []));
    return { type: "scatter", mode: "markers", name: theme, x: at.map((i) => coordinates[i][0]),
      y: at.map((i) => coordinates[i][1]), text: at.map((i) => r.words[i]), customdata: at.map((i) => r.words[i]),
      hovertemplate: "%{text}<extra></extra>", marker: { size: 9, color: themeColour(page.themes, theme) } };
  });
  const [x, y] = coordinates[r.highlight];
  traces.push({ type: "scatter", mode: "markers", name: `'${r.words[r.highlight]}'`, x: [x], y: [y],
    customdata: [r.words[r.highlight]], hoverinfo: "name",
    marker: { size: 20, symbol: "circle-open", color: colour("ink"), line: { width: 3 } } });
  const [a, b] = ratio.map((v) => `${(100 * v).toFixed(0)}%`);
  await plot(page.map, traces, { xaxis: { title: { text: `axis 1 (${a})` }, zeroline: false },
    yaxis: { title: { text: `axis 2 (${b})` }, zeroline: false }, height: 460 });
  const order = [r.highlight, ...r.words.keys()].filter((i, n, all) => all.indexOf(i) === n); // the word first
  await labelPoints(page.map, order.map((i) => ({ x: coordinates[i][0], y: coordinates[i][1], text: r.words[i],
    radius: i === r.highlight ? 12 : 5 }))); // the ring: size 20 and its line
  if (!page.clickable) { // plotly gives the div .on() once it has drawn there; one handler is enough
    page.clickable = true;
    page.map.on("plotly_click", (event) => page.pick(event.points[0]?.customdata));
  }
  page.chips.replaceChildren(el("span", { class: "note" }, "try: "), ...r.words.map((w, i) => {
    const chip = el("button", { class: i === r.highlight ? "chip selected" : "chip", "data-word": w }, w);
    chip.addEventListener("click", () => page.pick(w));
    return chip;
  }));
}

function drawOneHot(page, r) {
  const cells = (values) => values.map((v) => el("td", {}, fixed(v, 4)));
  const head = el("tr", {}, el("th", {}, "key"), el("th", {}, "one-hot"), ...r.row.map((_, j) => el("th", {}, `d${j}`)));
  const rows = r.keys.map((key, i) => el("tr", i === r.position ? { class: "picked" } : {},
    el("td", {}, key), el("td", {}, String(r.one_hot[i])), ...cells(r.e_small[i])));
  const result = (label, values, id) => el("tr", { id, class: "total" }, el("td", {}, label), el("td", {}, ""),
    ...cells(values));
  page.onehot.replaceChildren(
    note(`h is 1 at place ${r.position} of ${r.keys.length}; E_small holds these ${r.keys.length} rows of E, ` +
      `the first ${r.row.length} of ${r.dim} columns shown.`),
    el("div", { class: "scroll" }, el("table", { class: "result" }, head, ...rows,
      result("h × E_small", r.product, "lookup-product"), result(`E[${r.index}]`, r.row, "lookup-looked-up"))),
    el("p", { id: "lookup-difference", class: "stat" },
      `max |h × E_small − E[${r.index}]| over all ${r.dim} columns = ${r.max_abs_difference}`));
}
