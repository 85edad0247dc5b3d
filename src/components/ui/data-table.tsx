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

/**
 * A sortable, filterable, paged table (TanStack Table) with loading, empty and error states. On a
 * phone the table scrolls sideways inside its card instead of squeezing the columns.
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
  const { pageIndex } = table.state.pagination;
  const rows = table.getRowModel().rows;
  const total = table.getFilteredRowModel().rows.length;

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
                              <span aria-hidden className="text-slate-400">
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
          {rows.length === 0 && <p className="p-4 text-sm text-slate-500">Nothing matches the filter.</p>}
          <div className="flex items-center justify-between gap-2 border-t border-slate-200 px-3 py-2 text-sm text-slate-600">
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
