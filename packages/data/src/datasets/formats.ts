import type { ChatMessage, ChatToolCall, Conversation, ToolSchema } from '../chat/types';
import type { DataLocation } from '../errors';
import { FieldReader, isObject, type JsonObject } from './fields';

/** One RL prompt in the verl format (data_source, prompt, ability, reward_model.ground_truth, extra_info). */
export interface RlPrompt {
  dataSource: string;
  prompt: ChatMessage[];
  ability?: string;
  groundTruth: string;
  extraInfo: JsonObject;
}

/** A plain question with its gold answer. */
export interface QaPair {
  question: string;
  answer: string;
}

const ROLES: readonly ChatMessage['role'][] = ['system', 'user', 'assistant', 'tool'];

function parseToolCall(value: unknown, fields: FieldReader): ChatToolCall {
  const call = fields.object(value);
  const fn = fields.at('function').object(call.function);
  const name = fields.at('function').string(fn, 'name');
  const args = fn.arguments;
  if (typeof args !== 'string' && !isObject(args)) {
    return fields.at('function').fail('arguments', 'expected a JSON string or an object');
  }
  const parsed: ChatToolCall = { function: { name, arguments: args } };
  if (call.type === 'function') parsed.type = 'function';
  const id = fields.optionalString(call, 'id');
  if (id !== undefined) parsed.id = id;
  return parsed;
}

function parseMessage(value: unknown, fields: FieldReader): ChatMessage {
  const record = fields.object(value);
  const role = fields.string(record, 'role') as ChatMessage['role'];
  if (!ROLES.includes(role)) fields.fail('role', `is "${role}"; expected one of ${ROLES.join(', ')}`);
  // OpenAI-style assistant messages that only call tools carry content null.
  const content = record.content === null && role === 'assistant' ? '' : fields.string(record, 'content');
  const message: ChatMessage = { role, content };
  const reasoning = fields.optionalString(record, 'reasoning_content');
  if (reasoning !== undefined) message.reasoning_content = reasoning;
  if (record.tool_calls !== undefined && record.tool_calls !== null) {
    message.tool_calls = fields
      .arrayOrJson(record, 'tool_calls')
      .map((call, i) => parseToolCall(call, fields.at(`tool_calls[${i}]`)));
  }
  for (const key of ['tool_call_id', 'name'] as const) {
    const text = fields.optionalString(record, key);
    if (text !== undefined) message[key] = text;
  }
  return message;
}

function parseMessages(record: JsonObject, field: string, fields: FieldReader): ChatMessage[] {
  const messages = fields.arrayOrJson(record, field);
  if (messages.length === 0) fields.fail(field, 'is empty; a conversation needs at least one message');
  return messages.map((message, i) => parseMessage(message, fields.at(`${field}[${i}]`)));
}

/** Parses one verl RL prompt record. */
export function parseRlPrompt(value: unknown, location: DataLocation = {}): RlPrompt {
  const fields = new FieldReader(location);
  const record = fields.object(value);
  const rewardModel = fields.at('reward_model').object(record.reward_model);
  const prompt: RlPrompt = {
    dataSource: fields.string(record, 'data_source'),
    prompt: parseMessages(record, 'prompt', fields),
    groundTruth: fields.at('reward_model').answer(rewardModel, 'ground_truth'),
    extraInfo:
      record.extra_info === undefined || record.extra_info === null
        ? {}
        : fields.at('extra_info').object(record.extra_info),
  };
  const ability = fields.optionalString(record, 'ability');
  if (ability !== undefined) prompt.ability = ability;
  return prompt;
}

function parseTool(value: unknown, fields: FieldReader): ToolSchema {
  const tool = fields.object(value);
  const fn = fields.at('function').object(tool.function);
  const name = fields.at('function').string(fn, 'name');
  const schema: ToolSchema = { type: 'function', function: { name } };
  const description = fields.at('function').optionalString(fn, 'description');
  if (description !== undefined) schema.function.description = description;
  if (fn.parameters !== undefined && fn.parameters !== null) {
    schema.function.parameters = fields.at('function.parameters').object(fn.parameters);
  }
  return schema;
}

/** Parses one SFT record in the messages + tools format (tools may be a JSON string). */
export function parseConversation(value: unknown, location: DataLocation = {}): Conversation {
  const fields = new FieldReader(location);
  const record = fields.object(value);
  const conversation: Conversation = { messages: parseMessages(record, 'messages', fields) };
  if (record.tools !== undefined && record.tools !== null) {
    conversation.tools = fields
      .arrayOrJson(record, 'tools')
      .map((tool, i) => parseTool(tool, fields.at(`tools[${i}]`)));
  }
  return conversation;
}

/** Parses one { question, answer } record; numeric answers become their decimal text. */
export function parseQaPair(value: unknown, location: DataLocation = {}): QaPair {
  const fields = new FieldReader(location);
  const record = fields.object(value);
  return { question: fields.string(record, 'question'), answer: fields.answer(record, 'answer') };
}
