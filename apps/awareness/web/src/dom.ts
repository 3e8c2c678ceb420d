/**
 * A tiny element builder: `h("li", { "data-testid": "alert", class: "dim" }, "text", child)`. Attributes whose value
 * is `undefined` or `false` are left out; `true` sets an empty attribute. Text is always set as text, never as HTML.
 */
export type Child = Node | string | number | undefined | null | false
export type Attributes = Readonly<Record<string, string | number | boolean | undefined>>

export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: ReadonlyArray<Child | ReadonlyArray<Child>>
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue
    element.setAttribute(name, value === true ? "" : String(value))
  }
  append(element, children)
  return element
}

const append = (parent: Node, children: ReadonlyArray<Child | ReadonlyArray<Child>>): void => {
  for (const child of children) {
    if (Array.isArray(child)) append(parent, child)
    else if (child instanceof Node) parent.appendChild(child)
    else if (child !== undefined && child !== null && child !== false) {
      parent.appendChild(document.createTextNode(String(child)))
    }
  }
}

/** Replaces the children of `parent`, keeping keyboard focus on the control with the same `data-key`. */
export const replace = (parent: Element, ...children: ReadonlyArray<Child | ReadonlyArray<Child>>): void => {
  const active = document.activeElement
  const key = active instanceof HTMLElement && parent.contains(active) ? active.dataset.key : undefined
  parent.replaceChildren()
  append(parent, children)
  if (key !== undefined) {
    const again = parent.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)
    again?.focus()
  }
}

/** A `<time>` with the instant in `datetime`, shown in local time and relative to now ("in 25 min", "3 h ago"). */
export const time = (iso: string | null | undefined, nowMs: number = Date.now()): HTMLElement | string => {
  if (iso === null || iso === undefined || iso === "") return "—"
  const at = Date.parse(iso)
  if (Number.isNaN(at)) return iso
  return h("time", { datetime: new Date(at).toISOString(), title: new Date(at).toLocaleString() }, relative(at - nowMs))
}

const relative = (deltaMs: number): string => {
  const minutes = Math.round(Math.abs(deltaMs) / 60_000)
  const text =
    minutes < 1
      ? "now"
      : minutes < 90
        ? `${minutes} min`
        : minutes < 36 * 60
          ? `${Math.round(minutes / 60)} h`
          : `${Math.round(minutes / 1440)} d`
  if (text === "now") return "just now"
  return deltaMs >= 0 ? `in ${text}` : `${text} ago`
}
