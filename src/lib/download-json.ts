/** Saves `value` as a pretty-printed JSON file named `fileName`, from the browser (console downloads of signed documents). */
export function downloadJson(fileName: string, value: unknown): void {
  const blob = new Blob([JSON.stringify(value, null, 2)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = fileName;
  link.click();
  // Revoked after the click has handed the file to the browser's download.
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}
