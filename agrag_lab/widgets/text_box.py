"""``PausedTextarea``: a text box that sends its text to Python when the typing pauses.

An ``ipywidgets.Textarea`` with ``continuous_update=True`` sends every
keystroke to the kernel (a check per key); with ``False`` it waits until the
box loses focus. This box sends its text once the person has stopped typing
for ``wait_ms`` milliseconds (a paste is one edit: sent after the same
pause), and at once when the box loses focus. Python may set ``value`` too;
the box shows it unless the person is in the middle of typing.

Examples
--------
>>> box = PausedTextarea(value="Ada [1].", wait_ms=250)
>>> box.value, box.wait_ms
('Ada [1].', 250)
"""

from __future__ import annotations

import anywidget
import traitlets

_ESM = """
function render({ model, el }) {
  const box = document.createElement("textarea");
  box.className = "agrag-textarea";
  box.placeholder = model.get("placeholder");
  box.value = model.get("value");
  box.style.height = model.get("height");
  box.spellcheck = false;
  let timer = null;
  const send = () => {
    clearTimeout(timer);
    timer = null;
    if (box.value !== model.get("value")) {
      model.set("value", box.value);
      model.save_changes();
    }
  };
  box.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(send, model.get("wait_ms"));
  });
  box.addEventListener("blur", send);
  model.on("change:value", () => {
    if (timer === null && box.value !== model.get("value")) box.value = model.get("value");
  });
  el.appendChild(box);
  return () => clearTimeout(timer);
}
export default { render };
"""

_CSS = """
.agrag-textarea { width: 100%; box-sizing: border-box; resize: vertical; font-family: var(--jp-code-font-family, monospace);
  font-size: 13px; padding: 4px 6px; color: var(--jp-ui-font-color0, #000); background: var(--jp-layout-color0, #fff);
  border: 1px solid var(--jp-border-color1, #bdbdbd); }
.agrag-textarea:focus { outline: 1px solid var(--jp-brand-color1, #1976d2); }
.agrag-textarea::placeholder { color: var(--jp-ui-font-color2, #616161); }
"""


class PausedTextarea(anywidget.AnyWidget):
    """A multi-line text box whose ``value`` reaches Python after a pause in typing (or on blur).

    Traits (synced)
    ---------------
    value : str
        The text.
    placeholder : str
        Shown while the box is empty.
    wait_ms : int
        The pause, in milliseconds, after which the text is sent (default 300).
    height : str
        CSS height of the box.
    """

    _esm = _ESM
    _css = _CSS

    value = traitlets.Unicode("").tag(sync=True)
    placeholder = traitlets.Unicode("").tag(sync=True)
    wait_ms = traitlets.Int(300).tag(sync=True)
    height = traitlets.Unicode("8em").tag(sync=True)
