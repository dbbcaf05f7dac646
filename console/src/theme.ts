// Light or dark: follows prefers-color-scheme until the user picks with the
// Theme button; the pick is kept in localStorage.

const kThemeKey = 'indelible.theme';
export type Theme = 'light' | 'dark';

function systemTheme(): Theme {
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function storedTheme(): Theme | null {
  const value = localStorage.getItem(kThemeKey);
  return value === 'light' || value === 'dark' ? value : null;
}

export function currentTheme(): Theme {
  return storedTheme() ?? systemTheme();
}

/** Sets data-theme on <html>, which the CSS variables key on. */
export function applyTheme(theme: Theme | null): void {
  if (theme) {
    localStorage.setItem(kThemeKey, theme);
    document.documentElement.dataset.theme = theme;
  } else {
    delete document.documentElement.dataset.theme;
  }
}
