// Lookup: a token's row as bars, its place on a 2-D map of themed words, and one-hot × E.
import { THEME_COLOURS, bars, el, field, get, guard, plot } from "./api.js";

const fmt = (x) => x.toFixed(4);

export async function render(root) {
  const { tables } = await get("/api/tables");
  const source = el("select", { id: "lookup-table" }, ...tables.map((t) => el("option", {}, t)));
  const token = el("input", { id: "lookup-token", value: "king", maxlength: 100 });
  const normalize = el("input", { id: "lookup-normalize", type: "checkbox" });
  const status = el("div", { id: "lookup-status" });
  const chips = el("div", { id: "lookup-chips" });
  const rowCaption = el("p", { id: "lookup-row-caption", class: "stat" });
  const rowBars = el("div", { id: "lookup-bars", class: "plot" });
  const mapCaption = el("p", { id: "lookup-map-caption", class: "note" });
  const map = el("div", { id: "lookup-map", class: "plot" });
  const onehot = el("div", { id: "lookup-onehot" });
  root.append(
    el("h2", {}, "Lookup"),
    el("p", {}, "A token's embedding is row i of the table E, where i is the token's id: the layer reads that " +
      "row and does no arithmetic. Writing the id as a one-hot vector and multiplying it by E gives the same " +
      "numbers, which is why the lookup can be trained like a matrix. Rows of related words point in " +
      "related directions, which the map below shows for a few themed words."),
    el("div", { class: "controls" }, field("table", source), field("token", token),
      field("normalise rows before the map", normalize)),
    chips, status, rowCaption, rowBars,
    el("h3", {}, "Themed words, projected to 2-D"), mapCaption, map,
    el("h3", {}, "One-hot × E on a small vocabulary"), onehot);

  let ticket = 0; // only the latest request draws: answers can arrive out of order
  let clickable = false;
  const pick = (word) => { if (word && word !== token.value) { token.value = word; update(); } };
  const drawRow = (r) => {
    rowCaption.textContent = `'${r.key}' is row ${r.index.toLocaleString()} of ${r.vocab_size.toLocaleString()}; ` +
      `its ${r.dim} values below, ‖E[${r.index}]‖ = ${fmt(r.norm)}`;
    bars(rowBars, r.row, { color: r.row.map((v) => (v < 0 ? "#d9822b" : "#2f6fde")),
      layout: { xaxis: { title: { text: "dimension" } }, yaxis: { title: { text: "value" } }, bargap: 0 } });
  };
  const drawMap = (r) => {
    mapCaption.textContent = r.caption;
    const themes = r.theme_names.filter((theme) => r.themes.includes(theme));
    const traces = themes.map((theme) => {
      const at = r.themes.flatMap((th, i) => (th === theme ? [i] : []));
      return { type: "scatter", mode: "markers+text", name: theme, x: at.map((i) => r.coordinates[i][0]),
        y: at.map((i) => r.coordinates[i][1]), text: at.map((i) => r.words[i]), customdata: at.map((i) => r.words[i]),
        textposition: "top center", marker: { size: 9, color: THEME_COLOURS[theme] ?? THEME_COLOURS.other } };
    });
    const [x, y] = r.coordinates[r.highlight];
    traces.push({ type: "scatter", mode: "markers", name: `'${r.words[r.highlight]}'`, x: [x], y: [y],
      customdata: [r.words[r.highlight]], hoverinfo: "name",
      marker: { size: 20, symbol: "circle-open", color: "#1d2433", line: { width: 3 } } });
    const [a, b] = r.explained_variance_ratio.map((v) => `${(100 * v).toFixed(0)}%`);
    plot(map, traces, { xaxis: { title: { text: `axis 1 (${a})` }, zeroline: false },
      yaxis: { title: { text: `axis 2 (${b})` }, zeroline: false }, height: 460 });
    if (!clickable) { // plotly gives the div .on() once it has drawn there; one handler is enough
      clickable = true;
      map.on("plotly_click", (event) => pick(event.points[0]?.customdata));
    }
    chips.replaceChildren(el("span", { class: "note" }, "try: "), ...r.words.map((w, i) => {
      const chip = el("button", { class: i === r.highlight ? "chip selected" : "chip", "data-word": w }, w);
      chip.addEventListener("click", () => pick(w));
      return chip;
    }));
  };
  const drawOneHot = (r) => {
    const dims = r.row.length;
    const head = el("tr", {}, el("th", {}, "key"), el("th", {}, "one-hot"),
      ...r.row.map((_, j) => el("th", {}, `d${j}`)));
    const rows = r.keys.map((key, i) => el("tr", i === r.position ? { style: "background:#eef2fb" } : {},
      el("td", {}, key), el("td", {}, String(r.one_hot[i])), ...r.e_small[i].map((v) => el("td", {}, fmt(v)))));
    const result = (label, values, id) => el("tr", { id, style: "font-weight:600" }, el("td", {}, label),
      el("td", {}, ""), ...values.map((v) => el("td", {}, fmt(v))));
    onehot.replaceChildren(
      el("p", { class: "note" }, `h is 1 at place ${r.position} of ${r.keys.length}; E_small holds these ` +
        `${r.keys.length} rows of E, the first ${dims} of ${r.dim} columns shown.`),
      el("div", { style: "overflow-x:auto" }, el("table", { class: "result" }, head, ...rows,
        result("h × E_small", r.product, "lookup-product"), result(`E[${r.index}]`, r.row, "lookup-looked-up"))),
      el("p", { id: "lookup-difference", class: "stat" },
        `max |h × E_small − E[${r.index}]| over all ${r.dim} columns = ${r.max_abs_difference}`));
  };
  const mapOnly = () => get("/api/lookup/map", { table: source.value, token: token.value, normalize: normalize.checked });
  const update = () => {
    const mine = ++ticket;
    const params = { table: source.value, token: token.value };
    return guard(status, async () => {
      const [row, points, view] = await Promise.all([get("/api/lookup/row", params), mapOnly(),
        get("/api/lookup/onehot", { ...params, dims: 8 })]);
      if (mine !== ticket) return;
      status.replaceChildren();
      drawRow(row); drawMap(points); drawOneHot(view);
    });
  };
  const updateMap = () => {
    const mine = ++ticket;
    return guard(status, async () => {
      const points = await mapOnly();
      if (mine !== ticket) return;
      status.replaceChildren();
      drawMap(points);
    });
  };
  source.addEventListener("change", update);
  token.addEventListener("change", update);
  normalize.addEventListener("change", updateMap);
  await update();
}
