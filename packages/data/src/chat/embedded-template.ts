/** Where the embedded model's generation stops: the end of its turn, or the opener of a tool result. */
export const EMBEDDED_STOP_STRINGS: readonly string[] = ['<|im_end|>', '```output'];

/**
 * The embedded model's chat template: ChatML turns, with tool results rendered in the markdown tool format
 * inside the assistant turn (```python ... ``` by the model, then ```output ... ``` inserted), as the
 * Qwen2.5-Math tool-integrated-reasoning style and @taorl/sandbox's markdown format do: the model writes the
 * "```output" opener (its stop string) and the environment fills in the rest of the block. An assistant message followed by a tool message keeps its
 * turn open, so a rollout's response is one assistant turn no matter how many tool calls it makes. The tools
 * list is not rendered: the embedded model only ever has the Python tool.
 */
export const EMBEDDED_CHAT_TEMPLATE = [
  '{%- for message in messages -%}',
  "{%- if message.role == 'tool' -%}",
  "{{- '```output\\n' + message.content + '\\n```\\n' -}}",
  "{%- elif message.role == 'assistant' -%}",
  "{%- if loop.first or messages[loop.index0 - 1].role != 'tool' -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}",
  '{{- message.content -}}',
  "{%- if loop.last or messages[loop.index0 + 1].role != 'tool' -%}{{- '<|im_end|>\\n' -}}{%- endif -%}",
  '{%- else -%}',
  "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' -}}",
  '{%- endif -%}',
  '{%- endfor -%}',
  "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}",
].join('');
