/**
 * A credential of every kind the rule set covers, made up at run time (so the repository holds no
 * string a scanner would flag), each as the line an agent's transcript would carry it in: a `.env`
 * line it read, a token it printed, a connection string it pasted.
 *
 * Not here: the transcripts they are planted in (each suite writes its own).
 */

/** A fixed pseudo-random stream: the same values on every run, varied enough to read as keys. */
function stream(seed: number): (alphabet: string, n: number) => string {
  let x = seed >>> 0;
  return (alphabet, n) => {
    let s = '';
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      s += alphabet[(x >>> 8) % alphabet.length];
    }
    return s;
  };
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const B64 = `${ALNUM}+/`;
const HEX = '0123456789abcdef';

export interface Planted {
  /** The kind `cctop secrets` names. */
  kind: string;
  /** The secret itself: no output may contain it. */
  value: string;
  /** The text a transcript carries it in. */
  line: string;
}

export function plantedSecrets(): Planted[] {
  const r = stream(32);
  const awsId = `AKIA${r(UPPER, 16)}`;
  const awsSecret = r(B64, 40);
  const github = `ghp_${r(ALNUM, 36)}`;
  const githubFine = `github_pat_${r(ALNUM, 82)}`;
  const openai = `sk-proj-${r(ALNUM, 74)}T3BlbkFJ${r(ALNUM, 74)}`;
  const anthropic = `sk-ant-api03-${r(ALNUM, 93)}AA`;
  const slack = `xoxb-${r('0123456789', 12)}-${r('0123456789', 13)}-${r(ALNUM, 24)}`;
  const webhook = `https://hooks.slack.com/services/T${r(UPPER, 10)}/B${r(UPPER, 10)}/${r(ALNUM, 24)}`;
  const sendgrid = `SG.${r(ALNUM, 22)}.${r(ALNUM, 43)}`;
  const shopify = `shpat_${r(HEX, 32)}`;
  const npm = `npm_${r(ALNUM, 36)}`;
  const linear = `lin_api_${r(ALNUM, 40)}`;
  // A service account token is base64 of a JSON object; one byte past a multiple of three ends it in `fQ==`.
  let account = `{"email":"${r(HEX, 12)}@1passwordserviceaccounts.lcl","secretKey":"A3-${r(UPPER, 30)}","srpX":"${r(HEX, 64)}"`;
  while ((account.length + 1) % 3 !== 1) account += ' ';
  const onePassword = `ops_${Buffer.from(`${account}}`).toString('base64')}`;
  const pgPass = r(ALNUM, 18);
  const mysqlPass = r(ALNUM, 18);
  const mongoPass = r(ALNUM, 18);
  const basicPass = r(ALNUM, 16);
  const keyBody = `MII${Array.from({ length: 6 }, () => r(B64, 64)).join('\n')}`;
  const stripe = `sk_live_${r(ALNUM, 24)}`;
  const dbPassword = r(ALNUM, 24);
  const jwt = `eyJ${r(ALNUM, 20)}.eyJ${r(ALNUM, 40)}.${r(ALNUM, 43)}`;
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const bearer = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: r(HEX, 12), iat: 1764000000 })}.${r(`${ALNUM}-_`, 43)}`;
  return [
    { kind: 'AWS access key id', value: awsId, line: `aws_access_key_id = ${awsId}` },
    { kind: 'AWS secret key', value: awsSecret, line: `aws_secret_access_key = ${awsSecret}` },
    { kind: 'GitHub token', value: github, line: `gh auth status: ${github}` },
    {
      kind: 'GitHub token',
      value: githubFine,
      line: `git remote set-url origin https://${githubFine}@github.com/o/r`,
    },
    { kind: 'OpenAI key', value: openai, line: `OPENAI=${openai}` },
    { kind: 'Anthropic key', value: anthropic, line: `The key is ${anthropic} (from ~/.config)` },
    { kind: 'Slack token', value: slack, line: `slack bot: ${slack}` },
    { kind: 'Slack webhook', value: webhook, line: `curl -X POST ${webhook}` },
    { kind: 'SendGrid key', value: sendgrid, line: `sendgrid: ${sendgrid}` },
    { kind: 'Shopify token', value: shopify, line: `shop token ${shopify}` },
    { kind: 'npm token', value: npm, line: `//registry.npmjs.org/ with ${npm}` },
    { kind: 'Linear key', value: linear, line: `linear ${linear}` },
    { kind: '1Password token', value: onePassword, line: `OP_SERVICE ${onePassword}` },
    {
      kind: 'database password',
      value: pgPass,
      line: `psql postgres://app_user:${pgPass}@db.internal.example.com:5432/app`,
    },
    { kind: 'database password', value: mysqlPass, line: `mysql://root:${mysqlPass}@10.0.0.7:3306/shop` },
    {
      kind: 'database password',
      value: mongoPass,
      line: `mongodb+srv://admin:${mongoPass}@cluster0.example.net/prod`,
    },
    {
      kind: 'password in a URL',
      value: basicPass,
      line: `fetch https://deploy:${basicPass}@ci.example.com/hook`,
    },
    { kind: 'secret assigned to a name', value: stripe, line: `STRIPE_SECRET_KEY=${stripe}` },
    { kind: 'secret assigned to a name', value: dbPassword, line: `DB_PASSWORD="${dbPassword}"` },
    { kind: 'secret assigned to a name', value: jwt, line: `auth_token: ${jwt}` },
    {
      kind: 'JSON web token',
      value: bearer,
      line: `curl -H "Authorization: Bearer ${bearer}" https://api.example.com/v1/me`,
    },
    {
      kind: 'private key',
      value: keyBody,
      line: `-----BEGIN RSA PRIVATE KEY-----\n${keyBody}\n-----END RSA PRIVATE KEY-----`,
    },
  ];
}
