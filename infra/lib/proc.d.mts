export function readPid(settings: unknown, name: string): number | undefined;
export function isAlive(pid: number): boolean;
export function stopDaemon(settings: unknown, name: string, graceMs?: number): Promise<boolean>;
