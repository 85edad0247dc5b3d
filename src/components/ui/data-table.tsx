"use client";

import {
  type ColumnDef,
  columnFilteringFeature,
  createColumnHelper,
  createFilteredRowModel,
  createPaginatedRowModel,
  createSortedRowModel,
  filterFn_includesString,
  globalFilteringFeature,
  type RowData,
  rowPaginationFeature,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_datetime,
  sortFn_text,
  tableFeatures,
  useTable,
} from "@tanstack/react-table";
import { useSyncExternalStore } from "react";
import { EmptyState, ErrorState, LoadingRows } from "./states";

/** The features every console table uses: sorting, a text filter over all columns, client paging. */
export const tableFeatureSet = tableFeatures({
  rowSortingFeature,
  columnFilteringFeature,
  globalFilteringFeature,
  rowPaginationFeature,
  sortedRowModel: createSortedRowModel(),
  filteredRowModel: createFilteredRowModel(),
  paginatedRowModel: createPaginatedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric, text: sortFn_text, datetime: sortFn_datetime },
  filterFns: { includesString: filterFn_includesString },
});
export type Features = typeof tableFeatureSet;
// biome-ignore lint/suspicious/noExplicitAny: a row's columns hold values of different types (TanStack Table's own idiom for column arrays)
export type Columns<T extends RowData> = ColumnDef<Features, T, any>[];
export const columnsFor = <T extends RowData>() => createColumnHelper<Features, T>();

type Props<T extends RowData> = {
  /** Names the table for screen readers and tests. */
  label: string;
  columns: Columns<T>;
  data: T[] | undefined;
  isLoading?: boolean;
  error?: unknown;
  onRetry?: () => void;
  empty: React.ReactNode;
  filterPlaceholder?: string;
  pageSize?: number;
  toolbar?: React.ReactNode;
};

const NO_ROWS: never[] = [];

/** Tailwind's `sm` breakpoint: narrower than this, rows are shown as cards. */
const WIDE = "(min-width: 640px)";
const subscribeWide = (onChange: () => void) => {
  const query = window.matchMedia(WIDE);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
};
/** Whether the viewport is at least `sm` wide; the server renders the table (rows arrive after hydration anyway). */
const useWide = () =>
  useSyncExternalStore(
    subscribeWide,
    () => window.matchMedia(WIDE).matches,
    () => true,
  );

/**
 * A sortable, filterable, paged table (TanStack Table) with loading, empty and error states. Below
 * the `sm` breakpoint each row is a card of "label: value" lines, with a sort menu in place of the
 * column headers, so a phone never scrolls sideways; one of the two is in the DOM at a time.
 */
export function DataTable<T extends RowData>({
  label,
  columns,
  data,
  isLoading,
  error,
  onRetry,
  empty,
  filterPlaceholder = "Filter…",
  pageSize = 20,
  toolbar,
}: Props<T>) {
  const table = useTable({
    features: tableFeatureSet,
    columns,
    data: data ?? (NO_ROWS as T[]),
    globalFilterFn: "includesString",
    initialState: { pagination: { pageIndex: 0, pageSize } },
  });
  const wide = useWide();
  const { pageIndex } = table.state.pagination;
  const rows = table.getRowModel().rows;
  const total = table.getFilteredRowModel().rows.length;
  const sortable = table.getAllLeafColumns().filter((c) => c.getCanSort() && typeof c.columnDef.header === "string");
  const sorting = table.state.sorting[0];

  return (
    <div className="rounded-lg border border-slate-200 bg-white shadow-sm">
      <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 p-3">
        <input
          type="search"
          aria-label={`Filter ${label}`}
          placeholder={filterPlaceholder}
          value={(table.state.globalFilter as string) ?? ""}
          onChange={(e) => table.setGlobalFilter(e.target.value)}
          className="w-full rounded-md border border-slate-300 px-3 py-1.5 text-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200 sm:w-64"
        />
        {!wide && sortable.length > 0 && (data?.length ?? 0) > 1 && (
          <select
            aria-label={`Sort ${label}`}
            className="field w-full py-1.5"
            value={sorting ? `${sorting.id}:${sorting.desc ? "desc" : "asc"}` : ""}
            onChange={(e) => {
              const [id, dir] = e.target.value.split(":");
              table.setSorting(id ? [{ id, desc: dir === "desc" }] : []);
            }}
          >
            <option value="">Sort: as listed</option>
            {sortable.flatMap((c) => [
              <option key={`${c.id}:asc`} value={`${c.id}:asc`}>
                Sort: {String(c.columnDef.header)} ↑
              </option>,
              <option key={`${c.id}:desc`} value={`${c.id}:desc`}>
                Sort: {String(c.columnDef.header)} ↓
              </option>,
            ])}
          </select>
        )}
        <div className="ml-auto flex flex-wrap gap-2">{toolbar}</div>
      </div>
      {error ? (
        <ErrorState error={error} onRetry={onRetry} />
      ) : isLoading && !data ? (
        <LoadingRows />
      ) : (data?.length ?? 0) === 0 ? (
        <EmptyState>{empty}</EmptyState>
      ) : (
        <>
          {wide ? (
            <div className="overflow-x-auto">
              <table aria-label={label} className="w-full min-w-[36rem] text-left text-sm">
                <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                  {table.getHeaderGroups().map((group) => (
                    <tr key={group.id}>
                      {group.headers.map((header) => {
                        const sorted = header.column.getIsSorted();
                        const canSort = header.column.getCanSort();
                        return (
                          <th
                            key={header.id}
                            scope="col"
                            className="px-3 py-2 font-semibold"
                            aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                          >
                            {header.isPlaceholder ? null : canSort ? (
                              <button
                                type="button"
                                onClick={header.column.getToggleSortingHandler()}
                                className="inline-flex items-center gap-1 rounded uppercase hover:text-slate-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400"
                              >
                                <table.FlexRender header={header} />
                                <span aria-hidden className="text-slate-500">
                                  {sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : "↕"}
                                </span>
                              </button>
                            ) : (
                              <table.FlexRender header={header} />
                            )}
                          </th>
                        );
                      })}
                    </tr>
                  ))}
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {rows.map((row) => (
                    <tr key={row.id} className="hover:bg-slate-50">
                      {row.getAllCells().map((cell) => (
                        <td key={cell.id} className="px-3 py-2 align-top">
                          <table.FlexRender cell={cell} />
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <ul aria-label={label} className="divide-y divide-slate-200">
              {rows.map((row) => {
                const cells = row.getAllCells();
                const fields = cells.filter((cell) => cell.column.accessorFn);
                const actions = cells.filter((cell) => !cell.column.accessorFn);
                return (
                  <li key={row.id} className="px-3 py-3">
                    <dl className="grid grid-cols-[minmax(0,7rem)_minmax(0,1fr)] gap-x-3 gap-y-1.5 text-sm">
                      {fields.map((cell) => (
                        <div key={cell.id} className="contents">
                          <dt className="text-xs font-semibold uppercase tracking-wide text-slate-500">
                            {typeof cell.column.columnDef.header === "string" ? cell.column.columnDef.header : cell.column.id}
                          </dt>
                          <dd className="min-w-0 break-words">
                            <table.FlexRender cell={cell} />
                          </dd>
                        </div>
                      ))}
                    </dl>
                    {actions.length > 0 && (
                      <div className="mt-2 flex flex-wrap justify-end gap-2">
                        {actions.map((cell) => (
                          <table.FlexRender key={cell.id} cell={cell} />
                        ))}
                      </div>
                    )}
                  </li>
                );
              })}
            </ul>
          )}
          {rows.length === 0 && <p className="p-4 text-sm text-slate-500">Nothing matches the filter.</p>}
          <div className="flex flex-wrap items-center justify-between gap-2 border-t border-slate-200 px-3 py-2 text-sm text-slate-600">
            <span>
              {total} {total === 1 ? "row" : "rows"} · page {pageIndex + 1} of {Math.max(1, table.getPageCount())}
            </span>
            <div className="flex gap-2">
              <button type="button" className="btn-secondary" onClick={() => table.previousPage()} disabled={!table.getCanPreviousPage()}>
                Previous
              </button>
              <button type="button" className="btn-secondary" onClick={() => table.nextPage()} disabled={!table.getCanNextPage()}>
                Next
              </button>
            </div>
          </div>
        </>
      )}
    </div>
  );
}
