"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { FormError, fieldProblem } from "@/components/ui/form-field";
import { Section } from "@/components/ui/section";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import type { Format } from "./versions";

/** Bytes of an upload at most (the service refuses more). */
const MAX_BYTES = 10 * 1024 * 1024;

/** The file's bytes in base64, so the service decodes and hashes them exactly as `screening:import` does. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

const UPLOAD_FIELDS = {
  list: { label: "list name" },
  files: { label: "file" },
};

/** The organization's own watchlist: files read in the browser and sent as base64. */
export function Upload() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const toast = useToast();
  const [format, setFormat] = useState<Format>("ofac");
  const [list, setList] = useState("");
  const [main, setMain] = useState<File | null>(null);
  const [alt, setAlt] = useState<File | null>(null);
  const [reading, setReading] = useState(false);
  const [localError, setLocalError] = useState<string | null>(null);
  const upload = useSubmission(client.screening.uploadList, {
    fields: UPLOAD_FIELDS,
    onSuccess: (res) => {
      toast({
        tone: "ok",
        title: res.unchanged ? "Nothing changed" : "List imported",
        body: res.unchanged
          ? `These files are already the active version of ${res.list}.`
          : `${res.entryCount.toLocaleString()} entries are now the active version of ${res.list}; your people are re-screened against them.`,
      });
      void qc.invalidateQueries({ queryKey: trpc.screening.listVersions.queryKey() });
      void qc.invalidateQueries({ queryKey: trpc.screening.runs.queryKey() });
    },
  });
  const busy = reading || upload.isPending;
  const listField = fieldProblem("upload-list", upload.fieldError("list"));
  const filesField = fieldProblem("upload-file", upload.fieldError("files"));
  return (
    <Section
      title="Your organization's own list"
      id="upload-h"
      description="Upload your own watchlist. It is screened for your organization only, checked line by line like the global lists; the same files again change nothing. Up to 10 MB."
    >
      <form
        className="space-y-3"
        onSubmit={async (e) => {
          e.preventDefault();
          setLocalError(null);
          const files = [main, format === "ofac" ? alt : null].filter((f): f is File => !!f);
          if (files.length === 0) return setLocalError("Choose a file to upload.");
          if (files.reduce((n, f) => n + f.size, 0) > MAX_BYTES) return setLocalError("The files are larger than 10 MB together.");
          setReading(true);
          try {
            const payload = await Promise.all(files.map(async (f) => ({ name: f.name, contentBase64: await base64Of(f) })));
            upload.submit({ format, list: list.trim(), files: payload });
          } catch {
            setLocalError("The file could not be read. Choose it again.");
          } finally {
            setReading(false);
          }
        }}
      >
        <div className="grid gap-3 sm:grid-cols-2">
          <div>
            <label htmlFor="upload-format" className="label">
              Format
            </label>
            <select id="upload-format" className="field" value={format} onChange={(e) => setFormat(e.target.value as Format)}>
              <option value="ofac">OFAC SDN CSV (SDN.CSV, optional ALT.CSV)</option>
              <option value="ftm">FtM JSON lines</option>
              <option value="labels">Account labels CSV</option>
            </select>
          </div>
          <div>
            <label htmlFor="upload-list" className="label">
              List name
            </label>
            <input
              id="upload-list"
              className="field font-mono"
              value={list}
              onChange={(e) => setList(e.target.value)}
              placeholder="our-watchlist"
              {...listField.attrs}
            />
            {listField.line}
          </div>
          <div>
            <label htmlFor="upload-file" className="label">
              {format === "ofac" ? "SDN.CSV" : format === "ftm" ? "FtM file (.json)" : "Labels file (.csv)"}
            </label>
            <input
              id="upload-file"
              type="file"
              className="field"
              accept={format === "ftm" ? ".json,.jsonl,.ftm" : ".csv,.CSV"}
              {...filesField.attrs}
              onChange={(e) => setMain(e.target.files?.[0] ?? null)}
            />
          </div>
          {format === "ofac" && (
            <div>
              <label htmlFor="upload-alt" className="label">
                ALT.CSV (optional)
              </label>
              <input
                id="upload-alt"
                type="file"
                className="field"
                accept=".csv,.CSV"
                onChange={(e) => setAlt(e.target.files?.[0] ?? null)}
              />
            </div>
          )}
        </div>
        {filesField.line}
        <FormError text={localError ?? upload.formError} testId="upload-error" />
        <button type="submit" className="btn-primary" disabled={busy}>
          {busy ? "Uploading…" : "Upload list"}
        </button>
      </form>
    </Section>
  );
}
