/**
 * Where a page's list is, in words that match the screen: beside the page on a wide screen, and on a
 * phone either behind the ☰ Menu (the spaces) or stacked above the page (the agents). The stylesheet
 * shows one of the two phrasings per viewport (`.wide-only`, `.narrow-only`).
 */
export function ListPlace({ onPhone }: { onPhone: 'in the menu' | 'above' }) {
  return (
    <>
      <span className="wide-only">on the left</span>
      <span className="narrow-only">{onPhone === 'in the menu' ? 'under ☰ Menu' : 'above'}</span>
    </>
  );
}
