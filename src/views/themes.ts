/**
 * The view themes. "Theme default MUST exist and return HTML. An unrecognised theme renders with the default
 * theme and is not an error." (MNView.view)
 */
import type { ViewLinks, ViewModel } from "./model.ts";
import { renderDefaultPage } from "./render/default-theme.ts";
import { renderMetacatUiFragment } from "./render/metacatui-theme.ts";

export interface Theme {
  key: string;
  description: string;
  contentType: string;
  render(model: ViewModel, links: ViewLinks): string;
}

export const THEMES: readonly Theme[] = [
  {
    key: "default",
    description: "A complete HTML page: the metadata, the package members and the system metadata.",
    contentType: "text/html; charset=utf-8",
    render: renderDefaultPage,
  },
  {
    key: "metacatui",
    description: "The HTML fragment (div#Metadata) MetacatUI embeds on its dataset page.",
    contentType: "text/html; charset=utf-8",
    render: renderMetacatUiFragment,
  },
];

export function themeFor(key: string): Theme {
  return THEMES.find((t) => t.key === key) ?? (THEMES[0] as Theme);
}
