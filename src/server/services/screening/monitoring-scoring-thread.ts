// A re-screen's scoring thread (ScoringThreads in monitoring-scoring.ts): builds the change's index
// from the entries it is sent, then opens and scores each part of a page it is sent.
import { parentPort } from "node:worker_threads";
import { serveScoring } from "./monitoring-scoring";

if (parentPort) serveScoring(parentPort);
