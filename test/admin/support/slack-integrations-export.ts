import { tsAt, type ExportFiles } from './slack-export.ts'

// A small engineering workspace's export as Slack wrote them around 2016, with the newer Block
// Kit shapes beside: nobody has an email, integrations post legacy attachments (every field),
// newer apps post blocks, people write rich_text, files are shared the old way (`file`, with
// Slack's own "uploaded a file" text) and the new way (`files`), none of them in the export,
// and a file comment names its author only in comment.user. Made here, from nothing copied.
export const CREW = {
  ann: 'U1ANN', ben: 'U1BEN', cat: 'U1CAT', formerKevin: 'U1KEVIN', formerMallory: 'U1MALLORY',
  engineering: 'C1ENG', deploys: 'C1DEPLOY',
}

const day = '2016-03-01'
export const at = (minute: number): string => tsAt(`${day}T10:${String(minute).padStart(2, '0')}:00Z`, minute)
const GH = 'https://github.example/acme/campfire'

export function integrationsExport(): ExportFiles {
  const files: ExportFiles = new Map()
  const json = (path: string, value: unknown) => files.set(path, JSON.stringify(value, null, 1))
  json('users.json', [
    { id: CREW.ann, name: 'ann', real_name: 'Ann Example', profile: { real_name: 'Ann Example', title: 'Engineer' } },
    { id: CREW.ben, name: 'ben', profile: { real_name: 'Ben Sample', display_name: 'ben' } },
    { id: CREW.cat, name: 'cat', profile: { real_name: 'Cat Placeholder' } },
    { id: CREW.formerKevin, name: 'kevin', profile: { real_name: 'Kevin Again', email: 'Kevin@37signals.com' } },
    { id: CREW.formerMallory, name: 'mallory', profile: { real_name: 'Mallory Again', email: 'mallory@example.com' } },
  ])
  json('channels.json', [
    { id: CREW.engineering, name: 'engineering', created: 1450000000, creator: CREW.ann, members: [CREW.ann, CREW.ben, CREW.cat], is_archived: false },
    { id: CREW.deploys, name: 'deploys', created: 1450000000, creator: CREW.ben, members: [CREW.ann, CREW.ben], is_archived: false },
  ])
  json('bots.json', [{ id: 'B1JIRA', app_id: 'A1JIRA', name: 'Jira', deleted: false }])
  json('integration_logs.json', [
    { user_id: CREW.ben, user_name: 'ben', bot_id: 'B1CI', service_id: '4242', service_type: 'Circle CI', change_type: 'added', channel: 'deploys', date: '1450000100' },
  ])
  json(`engineering/${day}.json`, [
    githubPullRequest(1, 'B1GITHUB'),
    // The same integration, installed again: another bot id, the same name, the same bot.
    { ...githubPullRequest(2, 'B1GITHUB2'), attachments: [{ fallback: '[campfire] Pull request closed: #12 Stream day files', color: '6e5494', pretext: 'Pull request closed by <https://github.example/ben|ben>', mrkdwn_in: ['pretext'] }] },
    { type: 'message', subtype: 'bot_message', bot_id: 'B1JIRA', ts: at(3), text: '', attachments: [{ fallback: 'CAMP-7 Import bots by name was resolved', color: 'good' }] },
    { type: 'message', subtype: 'bot_message', bot_id: 'B1CI', ts: at(4), text: '', attachments: [{ title: 'Build #7', title_link: 'https://ci.example/7', text: 'Build #7 *passed* in 42s', color: 'good' }] },
    { type: 'message', subtype: 'bot_message', bot_id: 'B1DEPLOY', bot_profile: { id: 'B1DEPLOY', app_id: 'A1DEPLOY', name: 'Deploy Robot' }, ts: at(5), text: 'Deployed v2.3 to production', blocks: deployBlocks() },
    // Slack's text beside the blocks says the same in mrkdwn, and names the user group, which the blocks do not.
    { type: 'message', user: CREW.ann, ts: at(6), text: 'Plan: *bold* _italic_ ~gone~ `code()` <!subteam^S1BACK|@backend> <!here>', blocks: richTextBlocks() },
    { type: 'message', subtype: 'file_share', upload: true, user: CREW.ben, ts: at(7), text: `<@${CREW.ben}|ben> uploaded a file: <https://acme.slack.example/files/ben/F1SPEC/spec.pdf|spec.pdf>`, file: { id: 'F1SPEC', name: 'spec.pdf', title: 'spec.pdf', mimetype: 'application/pdf', url_private: 'https://files.slack.example/F1SPEC/spec.pdf' } },
    { type: 'message', subtype: 'file_share', upload: true, user: CREW.ben, ts: at(8), text: `<@${CREW.ben}|ben> uploaded a file: <https://acme.slack.example/files/ben/F1PLAN/plan.pdf|plan.pdf> and commented: Here is the plan`, file: { id: 'F1PLAN', name: 'plan.pdf', mimetype: 'application/pdf', initial_comment: { comment: 'Here is the plan' } } },
    { type: 'message', subtype: 'file_comment', ts: at(9), text: `<@${CREW.cat}|cat> commented on <@${CREW.ben}|ben>’s file <https://acme.slack.example/files/ben/F1SPEC/spec.pdf|spec.pdf>: Looks right to me`, file: { id: 'F1SPEC', name: 'spec.pdf' }, comment: { id: 'Fc1', created: 1456826940, user: CREW.cat, comment: 'Looks right to me' } },
    { type: 'message', user: CREW.cat, ts: at(10), text: 'Notes from today', files: [{ id: 'F1NOTES', name: 'notes.txt', mimetype: 'text/plain' }] },
    { type: 'message', user: CREW.ann, ts: at(11), text: '<https://news.example/article>', attachments: [{ service_name: 'Example News', title: 'Streams, explained', title_link: 'https://news.example/article', text: 'How parsers read a file a piece at a time.', from_url: 'https://news.example/article', thumb_url: 'https://news.example/thumb.png', fallback: 'Example News: Streams, explained' }] },
    { type: 'message', user: 'USLACKBOT', ts: at(12), text: 'Reminder: standup.' },
    { type: 'message', subtype: 'bot_message', bot_id: 'B1HOOK', ts: at(13), text: 'An unnamed webhook says hi' },
    { type: 'message', user: CREW.formerKevin, ts: at(14), text: 'Kevin wrote this on Slack' },
  ])
  json(`deploys/${day}.json`, [
    { type: 'message', subtype: 'bot_message', username: 'Circle CI', bot_id: 'B1CI', ts: at(20), text: 'Deploy finished', icons: { emoji: ':rocket:' } },
    { type: 'message', user: CREW.formerMallory, ts: at(21), text: 'Mallory wrote this on Slack' },
  ])
  return files
}

// GitHub's pull request notice, with every field a legacy attachment has.
function githubPullRequest(minute: number, botId: string): Record<string, unknown> {
  return {
    type: 'message', subtype: 'bot_message', username: 'github', bot_id: botId, icons: { image_48: 'https://github.example/icon.png' }, ts: at(minute), text: '',
    attachments: [{
      fallback: '[campfire] Pull request submitted: #12 Stream day files',
      color: '6e5494',
      pretext: `[campfire] Pull request submitted by <https://github.example/ann|ann>`,
      author_name: 'ann', author_link: 'https://github.example/ann', author_icon: 'https://github.example/ann.png', author_subname: 'Ann Example',
      title: '#12 Stream day files', title_link: `${GH}/pull/12`,
      text: 'Reads *each* day as a stream; see <https://github.example/acme/campfire/pull/12/files|the diff> &amp; tell me',
      fields: [{ title: 'Reviewers', value: '<@U1BEN>', short: true }, { title: 'Status', value: '_open_', short: true }],
      image_url: 'https://github.example/preview/chart.png', thumb_url: 'https://github.example/preview/thumb.png',
      actions: [{ type: 'button', text: 'Review', url: `${GH}/pull/12/files` }, { type: 'button', text: 'Ignore', name: 'ignore', value: 'x' }],
      footer: 'GitHub', footer_icon: 'https://github.example/footer.png', ts: 1456826400,
      mrkdwn_in: ['text', 'pretext', 'fields'],
    }],
  }
}

function deployBlocks(): unknown[] {
  return [
    { type: 'header', text: { type: 'plain_text', text: 'Deploy :rocket: v2.3', emoji: true } },
    { type: 'section', text: { type: 'mrkdwn', text: '*Production* is on <https://deploy.example/v2.3|v2.3>' }, fields: [{ type: 'mrkdwn', text: '*By*\nben' }, { type: 'plain_text', text: 'Took 3 minutes' }], accessory: { type: 'image', image_url: 'https://deploy.example/badge.png', alt_text: 'green badge' } },
    { type: 'divider' },
    { type: 'context', elements: [{ type: 'image', image_url: 'https://deploy.example/avatar.png', alt_text: 'ben' }, { type: 'mrkdwn', text: 'Deployed from `main`' }] },
    { type: 'image', image_url: 'https://deploy.example/graph.png', alt_text: 'latency graph', title: { type: 'plain_text', text: 'Latency after deploy' } },
    { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open the log' }, url: 'https://deploy.example/log/23' }, { type: 'button', text: { type: 'plain_text', text: 'Roll back' }, action_id: 'rollback' }] },
  ]
}

function richTextBlocks(): unknown[] {
  const text = (value: string, style?: Record<string, boolean>) => ({ type: 'text', text: value, ...(style ? { style } : {}) })
  return [{
    type: 'rich_text', block_id: 'r1',
    elements: [
      { type: 'rich_text_section', elements: [
        text('Plan: '), text('bold', { bold: true }), text(' '), text('italic', { italic: true }), text(' '), text('gone', { strike: true }), text(' '), text('code()', { code: true }),
        text(', see '), { type: 'link', url: 'https://docs.example/plan', text: 'the plan' }, text(', '), { type: 'user', user_id: CREW.ben }, text(' in '),
        { type: 'channel', channel_id: CREW.deploys }, text(' '), { type: 'emoji', name: 'wave', skin_tone: 3 }, text(' '), { type: 'usergroup', usergroup_id: 'S1BACK' },
        text(' '), { type: 'broadcast', range: 'here' }, text('\n'),
      ] },
      { type: 'rich_text_list', style: 'bullet', indent: 0, elements: [{ type: 'rich_text_section', elements: [text('first')] }, { type: 'rich_text_section', elements: [text('second')] }] },
      { type: 'rich_text_list', style: 'bullet', indent: 1, elements: [{ type: 'rich_text_section', elements: [text('nested')] }] },
      { type: 'rich_text_list', style: 'ordered', indent: 0, elements: [{ type: 'rich_text_section', elements: [text('one')] }] },
      { type: 'rich_text_quote', elements: [text('quoted '), text('words', { bold: true })] },
      { type: 'rich_text_preformatted', elements: [text('const a = 1 < 2\n'), { type: 'link', url: 'https://x.example' }] },
    ],
  }]
}
