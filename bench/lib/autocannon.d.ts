// autocannon ships no types; only what the bench uses.
declare module "autocannon" {
  type Req = { method?: string; path?: string; headers?: Record<string, string>; body?: string };
  type Options = {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    maxOverallRequests?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: { method?: string; path?: string; headers?: Record<string, string>; body?: string; setupRequest?: (req: Req) => Req }[];
  };
  type Stats = { average: number; mean: number; p50: number; p99: number; total: number };
  type Result = {
    requests: Stats;
    latency: Stats;
    non2xx: number;
    errors: number;
    timeouts: number;
    duration: number;
    statusCodeStats: Record<string, { count: number }>;
    "2xx": number;
  };
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
