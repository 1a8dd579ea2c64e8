/** A function call inside an assistant message, in the OpenAI / Hugging Face chat format. */
export interface ChatToolCall {
  type?: 'function';
  id?: string;
  function: { name: string; arguments: string | Record<string, unknown> };
}

/** One chat message in the OpenAI / Hugging Face messages format. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** Thinking text of an assistant message, for templates that render it (Qwen3). */
  reasoning_content?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  name?: string;
}

/** A tool offered to the model, as a JSON-schema function description. */
export interface ToolSchema {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** A conversation with the tools offered in it: the SFT "messages + tools" record. */
export interface Conversation {
  messages: ChatMessage[];
  tools?: ToolSchema[];
}
