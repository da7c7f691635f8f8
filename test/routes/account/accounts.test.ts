import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, inject, sameOrigin, signIn } from '../../helper.ts'
import { users } from '../../fixtures.ts'
import { accountRow, botCookie, get, send } from './support.ts'
import { multipart } from '../../support/multipart.ts'

const count = (html: string, pattern: RegExp) => (html.match(new RegExp(pattern, 'g')) ?? []).length

test('an administrator sees the account page with its name, logo, settings, nav links, invite link, people and version', async (t) => {
  const { app, config } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'david'), '/account/edit')
  assert.equal(response.statusCode, 200)
  const html = response.body
  assert.match(html, /<title>Account settings<\/title>/)
  assert.match(html, /<input type="text" name="account\[name\]" id="account_name" class="input txt-large" value="37signals"/)
  assert.equal(count(html, /<span class="for-screen-reader">Save changes<\/span>/), 1, 'exactly one Save changes button')
  assert.match(html, /<a href="\/account\/bots" class="btn"[^>]*>.*Set up chat bots/)
  assert.match(html, /<a href="\/account\/custom_styles\/edit" class="btn"[^>]*>.*Custom styles/)
  assert.match(html, /<input type="file" name="account\[logo\]" id="account_logo"[^>]* data-upload-preview-target="input" data-action="upload-preview#previewImage change->form#submit">/)
  assert.ok(!html.includes('Delete logo'), 'no logo to delete yet')
  assert.match(html, /name="account\[settings\]\[restrict_room_creation_to_administrators\]" id="account_settings_restrict_room_creation_to_administrators" value="true"/)
  assert.match(html, /<label class="switch">\s*<input type="checkbox" class="switch__input" data-action="change->form#submit">/)
  assert.match(html, /id="invite_url" value="http:\/\/localhost:80\/join\/Ab12-Cd34-Ef56"/)
  assert.match(html, /Regenerate join link/)
  assert.match(html, new RegExp(`Campfire TS version <span class="version-badge">${config.version}</span>`))
  assert.match(html, /<link rel="icon" href="\/account\/logo\?size=small&amp;v=20260301120000000000" type="image\/png">/)
})

test('the people list puts administrators before the first member, drawn with a rule above, and leaves bots out', async (t) => {
  const { app } = await buildTestApp(t)
  const html = (await get(app, await signIn(app, 'jz'), '/account/edit')).body
  const frame = html.slice(html.indexOf('<ul id="account_users"'))
  const divider = frame.indexOf('account-person--first-member')
  assert.equal(frame.split('account-person--first-member').length, 2, 'one first member')
  assert.ok(divider > 0)
  for (const name of [users.david.name, users.jason.name]) assert.ok(frame.indexOf(`<strong>${name}</strong>`) < divider, name)
  for (const name of [users.jz.name, users.kevin.name]) assert.ok(frame.indexOf(`<strong>${name}</strong>`) > divider, name)
  assert.ok(!html.includes(users.bender.name), 'bots are not people on this list')
  assert.ok(!html.includes('next_page_container'), 'one page holds four people')
})

test('a member sees the logo, the name, the invite link and the people, and none of the administrator controls', async (t) => {
  const { app } = await buildTestApp(t)
  const html = (await get(app, await signIn(app, 'kevin'), '/account/edit')).body
  assert.match(html, /<h1 class="account-settings__name">37signals<\/h1>/)
  assert.match(html, /<img src="\/account\/logo\?v=20260301120000000000" alt="Account logo"/)
  assert.match(html, /id="invite_url"/)
  for (const name of [users.david.name, users.jason.name, users.jz.name, users.kevin.name]) assert.ok(html.includes(`<strong>${name}</strong>`), name)
  for (const absent of ['account[name]', 'account[logo]', 'account[settings]', '/account/bots', 'Set up chat bots', '/account/custom_styles', 'Save changes', 'user[role]', '_method" value="delete"', 'Regenerate join link']) {
    assert.ok(!html.includes(absent), `a member does not see ${absent}`)
  }
  assert.match(html, /<a href="\/users\/me\/profile" class="btn txt-small flex-item-no-shrink" target="_top">.*My settings/, 'their own row leads to their settings')
  assert.equal(count(html, /My settings/), 1)
})

test('the account page asks anonymous visitors to sign in and refuses bots', async (t) => {
  const { app } = await buildTestApp(t)
  const anonymous = await app.inject({ url: '/account/edit' })
  assert.equal(anonymous.statusCode, 302)
  assert.equal(anonymous.headers.location, '/session/new')
  assert.equal((await get(app, await botCookie(app), '/account/edit')).statusCode, 403)
})

for (const [verb, url, fields] of [
  ['PATCH', '/account', []],
  ['PUT', '/account', []],
  ['POST', '/account', [['_method', 'patch']]],
  ['POST', '/account.1', [['_method', 'patch']]],
  ['PATCH', '/account.1', []],
] as ['PATCH' | 'PUT' | 'POST', string, [string, string][]][]) {
  test(`${verb} ${url}${fields.length ? ' with _method=patch' : ''} renames the account and goes back to the page with ✓`, async (t) => {
    const { app } = await buildTestApp(t)
    const cookie = await signIn(app, 'david')
    const response = await send(app, cookie, verb, url, [...fields, ['account[name]', 'Basecamp']])
    assert.equal(response.statusCode, 302)
    assert.equal(response.headers.location, '/account/edit')
    assert.equal(accountRow(app).name, 'Basecamp')
    const flash = response.cookies.find((c) => c.name === 'flash')!
    const page = await get(app, `${cookie}; flash=${flash.value}`, '/account/edit')
    assert.match(page.body, /<span role="alert" aria-atomic="true">✓<\/span>/)
    assert.match(page.body, /value="Basecamp"/)
  })
}

test('members and bots may not rename the account', async (t) => {
  const { app } = await buildTestApp(t)
  for (const cookie of [await signIn(app, 'jz'), await botCookie(app)]) {
    assert.equal((await send(app, cookie, 'PATCH', '/account', [['account[name]', 'Mine now']])).statusCode, 403)
  }
  assert.equal(accountRow(app).name, '37signals')
})

for (const [label, name] of [['a blank name', '   '], ['a name over 255 characters', 'x'.repeat(256)]]) {
  test(`renaming the account to ${label} answers 422 with the form keeping what was typed`, async (t) => {
    const { app } = await buildTestApp(t)
    const response = await send(app, await signIn(app, 'david'), 'PATCH', '/account', [['account[name]', name!]])
    assert.equal(response.statusCode, 422)
    assert.match(response.body, /role="alert">Please give the account a name/)
    assert.ok(response.body.includes(`value="${name}"`))
    assert.equal(accountRow(app).name, '37signals')
  })
}

for (const [label, fields] of [
  ['no account at all', [['name', 'Basecamp']]],
  ['the account as a plain string', [['account', 'Basecamp']]],
  ['the name as a list', [['account[name][]', 'Basecamp']]],
  ['the settings as a plain string', [['account[settings]', 'true']]],
  ['the setting as a list', [['account[settings][restrict_room_creation_to_administrators][]', 'true']]],
  ['the setting as a hash', [['account[settings][restrict_room_creation_to_administrators][x]', 'true']]],
] as [string, [string, string][]][]) {
  test(`an account form with ${label} answers 400 and changes nothing`, async (t) => {
    const { app } = await buildTestApp(t)
    const before = accountRow(app)
    const response = await send(app, await signIn(app, 'david'), 'PATCH', '/account', fields)
    assert.equal(response.statusCode, 400)
    assert.deepEqual(accountRow(app), before)
  })
}

test('an unknown _method on POST /account answers 400, and POST without one is not an update', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  assert.equal((await send(app, cookie, 'POST', '/account', [['_method', 'explode'], ['account[name]', 'X']])).statusCode, 400)
  assert.equal((await send(app, cookie, 'POST', '/account', [['account[name]', 'X']])).statusCode, 404)
  assert.equal(accountRow(app).name, '37signals')
})

test('flipping "Must be admin to create new rooms" stores it and members can no longer create rooms', async (t) => {
  const { app } = await buildTestApp(t)
  const admin = await signIn(app, 'david')
  const member = await signIn(app, 'jz')
  const key = 'account[settings][restrict_room_creation_to_administrators]'
  assert.equal((await send(app, admin, 'PUT', '/account', [[key, 'true']])).statusCode, 302)
  assert.deepEqual(JSON.parse(accountRow(app).settings!), { restrict_room_creation_to_administrators: true })
  assert.equal((await send(app, member, 'POST', '/rooms/opens', [['room[name]', 'Not allowed']])).statusCode, 403)
  const page = (await get(app, admin, '/account/edit')).body
  assert.match(page, /<input type="checkbox" class="switch__input" checked data-action="change->form#submit">/)
  assert.match(page, /id="account_settings_restrict_room_creation_to_administrators" value="false"/, 'the switch now sends false')

  assert.equal((await send(app, admin, 'PUT', '/account', [[key, 'false']])).statusCode, 302)
  assert.deepEqual(JSON.parse(accountRow(app).settings!), { restrict_room_creation_to_administrators: false })
  assert.equal((await send(app, member, 'POST', '/rooms/opens', [['room[name]', 'Allowed again']])).statusCode, 302)
})

for (const [value, expected] of [
  ['true', true], ['1', true], ['yes', true], ['on', true], ['False', true],
  ['false', false], ['0', false], ['f', false], ['off', false], ['OFF', false], ['', false],
] as [string, boolean][]) {
  test(`the room-creation setting "${value}" is read as ${expected}, as Rails casts a boolean`, async (t) => {
    const { app } = await buildTestApp(t)
    await send(app, await signIn(app, 'david'), 'PATCH', '/account', [['account[settings][restrict_room_creation_to_administrators]', value]])
    assert.equal(JSON.parse(accountRow(app).settings!).restrict_room_creation_to_administrators, expected)
  })
}

test('unknown settings and prototype keys are ignored, never a 500, and settings another version stored are kept', async (t) => {
  const { app } = await buildTestApp(t)
  app.store.writeNow((m) => m.db.prepare(`UPDATE accounts SET settings = '{"restrict_room_creation_to_administrators":false,"from_rails":42}'`).run())
  const response = await inject(app, await signIn(app, 'david'), {
    method: 'PATCH',
    url: '/account',
    payload: 'account[settings][bogus]=1&account[settings][__proto__][polluted]=1&account[settings][constructor][prototype][x]=1&account[settings][restrict_room_creation_to_administrators]=1',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...sameOrigin },
  })
  assert.equal(response.statusCode, 302)
  assert.deepEqual(JSON.parse(accountRow(app).settings!), { restrict_room_creation_to_administrators: true, from_rails: 42 })
  assert.equal(({} as Record<string, unknown>).polluted, undefined)
})

test('renaming the account moves the cached sidebar, which carries the account in its page', async (t) => {
  const { app } = await buildTestApp(t)
  const admin = await signIn(app, 'david')
  const version = () => app.store.read((m) => m.cacheVersions.sidebar(users.jz.id))
  const before = version()
  await send(app, admin, 'PATCH', '/account', [['account[name]', 'Renamed']])
  assert.notEqual(version(), before)
})

for (const verb of ['PATCH', 'PUT'] as const) {
  test(`${verb} /account with a real multipart body renames the account, as Rails accepts it`, async (t) => {
    const { app } = await buildTestApp(t)
    const cookie = await signIn(app, 'david')
    const form = multipart([{ name: 'account[name]', value: 'Multipart Fire' }])
    const response = await inject(app, cookie, { method: verb, url: '/account', payload: form.payload, headers: form.headers })
    assert.equal(response.statusCode, 302, response.body.slice(0, 300))
    assert.equal(accountRow(app).name, 'Multipart Fire')
  })
}

test('POST /account with a multipart body and no _method is still not an update', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const form = multipart([{ name: 'account[name]', value: 'Sneaky' }])
  const response = await inject(app, cookie, { method: 'POST', url: '/account', payload: form.payload, headers: form.headers })
  assert.equal(response.statusCode, 405)
  assert.equal(accountRow(app).name, '37signals')
})
