import { fetchBytes } from '../model/fetch-policy';
import { type DemoTask, parseDemoTask } from './demo-task';

/** task.json of the policy folder at `folderURL` (the asset command writes it), checked; errors name its URL. */
export async function fetchDemoTask(folderURL: string): Promise<DemoTask> {
  const url = new URL('task.json', folderURL).href;
  const bytes = await fetchBytes(url);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new Error(`${url}: not valid JSON`);
  }
  return parseDemoTask(json, url);
}
