// agrag_lab TableView: renders synced rows as an HTML table; a click selects a row.
// State lives in Python (columns, rows, selected, cut_after, caption); this only draws it.

function fmt(value, column) {
  if (value === null || value === undefined || value === "") return "";
  if (typeof value === "number") {
    if (column.format === "int") return String(Math.round(value));
    const digits = column.digits ?? 4;
    if (column.format === "signed") return (value > 0 ? "+" : "") + value.toFixed(digits);
    return value.toFixed(digits);
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "agrag-table";
  el.appendChild(root);

  function draw() {
    const columns = model.get("columns");
    const rows = model.get("rows");
    const selected = model.get("selected");
    const cut = model.get("cut_after");
    root.replaceChildren();
    root.dataset.name = model.get("name");
    const caption = model.get("caption");
    if (caption) {
      const cap = document.createElement("div");
      cap.className = "agrag-table-caption";
      cap.textContent = caption;
      root.appendChild(cap);
    }
    if (!rows.length) {
      const empty = document.createElement("div");
      empty.className = "agrag-table-empty";
      empty.textContent = model.get("empty_text");
      root.appendChild(empty);
      return;
    }
    const scroller = document.createElement("div");
    scroller.className = "agrag-table-scroll";
    scroller.style.maxHeight = model.get("max_height");
    const table = document.createElement("table");
    const head = table.createTHead().insertRow();
    for (const column of columns) {
      const th = document.createElement("th");
      th.textContent = column.label;
      if (column.title) th.title = column.title;
      head.appendChild(th);
    }
    const body = table.createTBody();
    rows.forEach((row, index) => {
      const tr = body.insertRow();
      tr.dataset.key = row._key;
      tr.dataset.index = String(index);
      const classes = [];
      if (row._tone) classes.push("tone-" + row._tone);
      if (row._key === selected) classes.push("selected");
      if (cut >= 0 && index === cut - 1) classes.push("cut-line");
      if (cut >= 0 && index >= cut) classes.push("below-cut");
      tr.className = classes.join(" ");
      if (row._hover) tr.title = row._hover;  // e.g. the item's id: in a hover, not in the text
      const marks = row._marks || {};
      for (const column of columns) {
        const td = tr.insertCell();
        td.dataset.column = column.key;
        const text = fmt(row[column.key], column);
        const locator = column.wrap ? null : / (#[cs][0-9-]+(?: \[[^\]]+\])?)$/.exec(text);
        if (locator) {
          // a passage's name ends with its number: cut the words before it, never the number (it tells passages apart)
          const name = document.createElement("span");
          name.className = "agrag-name";
          const head = document.createElement("span");
          head.className = "agrag-name-head";
          head.textContent = text.slice(0, locator.index);
          const tail = document.createElement("span");
          tail.className = "agrag-name-locator";
          tail.textContent = "\u00a0" + locator[1];
          name.append(head, tail);
          td.appendChild(name);
        } else {
          td.textContent = text;
        }
        if (column.wrap) td.classList.add("wrap");
        else if (column.format === "text" && text.length > 12) td.title = text;  // the whole text when the cell is cut short
        if (column.align === "right") td.style.textAlign = "right";
        if (column.max_width) {  // a narrower item column: the numbers of a wide table stay in view
          td.style.maxWidth = column.max_width;
          if (td.firstChild && td.firstChild.style) td.firstChild.style.maxWidth = column.max_width;
        }
        const mark = marks[column.key];
        if (mark && mark.best) td.classList.add("best");
        if (mark && mark.sup) {
          const sup = document.createElement("sup");
          sup.textContent = mark.sup;
          td.appendChild(sup);
        }
        if (mark && mark.title) td.title = mark.title;
      }
      tr.addEventListener("click", () => {
        model.set("selected", row._key === model.get("selected") ? "" : row._key);
        model.save_changes();
      });
    });
    scroller.appendChild(table);
    root.appendChild(scroller);
    if (cut >= 0 && cut < rows.length) {
      const note = document.createElement("div");
      note.className = "agrag-table-note";
      note.textContent = model.get("cut_label");
      root.appendChild(note);
    }
  }

  for (const name of ["columns", "rows", "selected", "cut_after", "caption", "cut_label"]) {
    model.on("change:" + name, draw);
  }
  draw();
}

export default { render };
