/**
 * One Gemini CLI chat in the whole-file form (`~/.gemini/tmp/<project>/chats/session-*.json`: one JSON
 * object, `messages` an array) that Gemini CLI wrote before its JSONL recording (0.40); the October
 * 2025 releases wrote it so, and the lab records only the JSONL form of 0.61. Written for these tests
 * from that format: the words and ids are ours. Shared by the tests of the scan and of the
 * conversation, so both read the same chat and their figures can be checked against each other.
 *
 * What it holds, worked out by hand (each `gemini` message with `tokens` is one request):
 *
 * | message | calls (status)                                          | input | cached | output | thoughts | tool |
 * | g1      | read_file (success)                                     | 4,000 |      0 |     20 |      100 |    0 |
 * | g2      | replace (success, no diff recorded)                     | 4,100 |  3,000 |     40 |       50 |    0 |
 * | g3      | write_file (success, a diff of +2), npm test (exit 1)   | 4,200 |      0 |     30 |        0 |    0 |
 * | g4      | list_directory `.` (error), python3 (cancelled)         | 4,300 |      0 |     10 |        0 |    0 |
 * | g5      | — ("Done.")                                             | 4,400 |  4,000 |      2 |        8 |   50 |
 *
 * So: 5 requests, 6 calls; the scan counts 2 failed (the `error` and the shell's non-zero exit; a
 * cancelled call did not run), the conversation marks 3 (the cancelled one too). cctop's tokens:
 * input − cached + tool = 4,000 + 1,100 + 4,200 + 4,300 + 450 = 14,050; cache read 7,000; output +
 * thoughts = 120 + 90 + 30 + 10 + 10 = 260, of which reasoning 158; the context is the newest request's
 * input + tool = 4,450.
 */

export const WHOLE_FILE_CHAT_ID = 'c0ffee00-1111-4222-8333-444455556666';
export const WHOLE_FILE_CHAT_PROMPT = "Rename the greeting in /tmp/demo/hello.txt from 'Hi' to 'Bye'";

const at = (s: number) => new Date(Date.parse('2025-10-29T09:00:00.000Z') + s * 1000).toISOString();

const tokens = (input: number, output: number, cached: number, thoughts: number, tool: number) => ({
  input,
  output,
  cached,
  thoughts,
  tool,
  total: input + output + thoughts + tool,
});

const call = (
  id: string,
  name: string,
  args: Record<string, unknown>,
  status: string,
  response: { output: string } | { error: string },
  s: number,
  extra: Record<string, unknown> = {},
) => ({
  id,
  name,
  args,
  result: [{ functionResponse: { id, name, response } }],
  status,
  timestamp: at(s),
  ...extra,
});

const thought = (subject: string, description: string, s: number) => [
  { subject, description, timestamp: at(s) },
];

const gemini = (
  id: string,
  s: number,
  content: string,
  t: ReturnType<typeof tokens>,
  extra: Record<string, unknown> = {},
) => ({ id, timestamp: at(s), type: 'gemini', content, model: 'gemini-2.5-pro', tokens: t, ...extra });

/** The chat as a JSON object; `prompt` replaces the first prompt (a test of a long one). */
export function wholeFileChat(prompt = `${WHOLE_FILE_CHAT_PROMPT}\n\n\n`): {
  sessionId: string;
  messages: unknown[];
  [k: string]: unknown;
} {
  return {
    sessionId: WHOLE_FILE_CHAT_ID,
    projectHash: '5e1f0c3a9b7d4e2f8a6c1b0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f',
    startTime: at(0),
    lastUpdated: at(70),
    messages: [
      { id: 'u1', timestamp: at(0), type: 'user', content: prompt },
      gemini('g1', 4, '', tokens(4_000, 20, 0, 100, 0), {
        thoughts: thought('Reading the file first', 'I will read hello.txt before changing it.', 3),
        toolCalls: [
          call(
            'read_file-1',
            'read_file',
            { absolute_path: '/tmp/demo/hello.txt' },
            'success',
            { output: 'Hi from the demo' },
            4,
          ),
        ],
      }),
      gemini('g2', 8, '', tokens(4_100, 40, 3_000, 50, 0), {
        thoughts: thought('Making the change', 'The file says Hi; I will replace it.', 7),
        toolCalls: [
          call(
            'replace-1',
            'replace',
            {
              file_path: '/tmp/demo/hello.txt',
              instruction: 'Say Bye instead of Hi.',
              old_string: 'Hi from the demo',
              new_string: 'Bye from the demo',
            },
            'success',
            { output: 'Successfully modified file: /tmp/demo/hello.txt (1 replacements).' },
            8,
          ),
        ],
      }),
      gemini('g3', 12, 'I will write a note and run the tests.', tokens(4_200, 30, 0, 0, 0), {
        thoughts: [],
        toolCalls: [
          call(
            'write_file-1',
            'write_file',
            { file_path: '/tmp/demo/NOTES.md', content: '# Notes\nBye now\n' },
            'success',
            { output: 'Successfully created and wrote to new file: /tmp/demo/NOTES.md.' },
            12,
            {
              resultDisplay: {
                fileDiff:
                  'Index: NOTES.md\n===================================================================\n--- NOTES.md\tOriginal\n+++ NOTES.md\tWritten\n@@ -0,0 +1,2 @@\n+# Notes\n+Bye now\n',
                fileName: 'NOTES.md',
                originalContent: '',
                newContent: '# Notes\nBye now\n',
              },
            },
          ),
          call(
            'run_shell_command-1',
            'run_shell_command',
            { command: 'npm test', description: 'Run the tests.' },
            'success',
            {
              output:
                'Command: npm test\nDirectory: (root)\nOutput: 1 failing\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242',
            },
            13,
          ),
        ],
      }),
      gemini('g4', 20, '', tokens(4_300, 10, 0, 0, 0), {
        thoughts: [],
        toolCalls: [
          call(
            'list_directory-1',
            'list_directory',
            { path: '.' },
            'error',
            { error: 'Path must be absolute: .' },
            20,
          ),
          call(
            'run_shell_command-2',
            'run_shell_command',
            { command: 'python3', description: 'Start the interpreter.' },
            'cancelled',
            { error: '[Operation Cancelled] Reason: User cancelled the operation.' },
            21,
          ),
        ],
      }),
      { id: 'u2', timestamp: at(60), type: 'user', content: "thanks, that's all" },
      gemini('g5', 70, 'Done.', tokens(4_400, 2, 4_000, 8, 50), { thoughts: [] }),
    ],
  };
}
