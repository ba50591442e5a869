// A report written to files, each in the format its name says: JUnit XML, JSON, or an HTML page.
import { writeFile } from 'node:fs/promises';
import type { Report } from './check-api-contract.js';
import { toHtmlReport } from './html-report.js';
import { toJsonReport, toJUnitXml } from './report-format.js';

/** The names a report file may have: `.xml` (JUnit), `.json`, `.html` (a page to look at). */
export const REPORT_FILE = /\.(xml|json|html?)$/i;

/** Writes `report` to each of `files`, in the format its extension names. */
export async function writeReports(report: Report, files: readonly string[]): Promise<void> {
  for (const file of files) {
    const format = /\.xml$/i.test(file)
      ? toJUnitXml
      : /\.html?$/i.test(file)
        ? toHtmlReport
        : toJsonReport;
    await writeFile(file, format(report));
  }
}
