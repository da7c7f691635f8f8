import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, form, inject, sameOrigin, signIn } from '../../helper.ts'
import { PASSWORD, rooms, users } from '../../fixtures.ts'
import { botCookie } from '../rooms/support.ts'
import { flashOf, value } from './support.ts'

function update(app: FastifyInstance, cookie: string, fields: Record<string, string>, url = '/users/me/profile') {
  return inject(app, cookie, { method: 'POST', url, ...form({ _method: 'patch', ...fields }) })
}

function person(app: FastifyInstance, id: number) {
  return app.store.read((m) => m.users.find(id))!
}

test('the profile shows the signed-in person, whatever the :user_id says, with exactly one Save changes button', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  for (const url of ['/users/me/profile', `/users/${users.david.id}/profile`]) {
    const response = await inject(app, cookie, { url })
    assert.equal(response.statusCode, 200)
    assert.match(response.body, /<title>Jason Zimdars<\/title>/)
    assert.match(response.body, /<input type="text" name="user\[name\]" id="user_name" class="txt-large" value="Jason Zimdars"/)
    assert.match(response.body, /name="user\[email_address\]" id="user_email_address" value="jz@37signals.com"/)
    assert.match(response.body, /<input type="password" name="user\[password\]" id="user_password" autocomplete="new-password" placeholder="Change password" maxlength="72">/)
    assert.match(response.body, /<textarea name="user\[bio\]" id="user_bio" placeholder="A few words about yourself…" maxlength="200" rows="3">/)
    assert.equal(response.body.match(/>Save changes</g)?.length, 1)
    assert.match(response.body, /<input type="file" name="user\[avatar\]" id="user_avatar"[^>]* accept="image\/\*"[^>]*change->form#submit/)
    assert.match(response.body, /<form action="\/session" method="post" data-controller="sessions" data-turbo="false">\s*<input type="hidden" name="_method" value="delete">\s*<input type="hidden" name="push_subscription_endpoint" id="push_subscription_endpoint" data-sessions-target="pushSubscriptionEndpoint">/)
    assert.match(response.body, /data-action="sessions#logout:prevent"/)
    assert.match(response.body, /id="session_transfer_url" readonly/)
    assert.doesNotMatch(response.body, /Delete avatar/)
  }
})

test('the profile lists every room with its bell, invisible ones too, shared rooms by name and then pings', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  await app.store.write((m) => m.involvements.update(rooms.watercooler.id, users.kevin.id, 'invisible'))
  const body = (await inject(app, cookie, { url: '/users/me/profile' })).body
  const names = [...body.matchAll(/<a href="\/rooms\/\d+" class="overflow-ellipsis txt-undecorated"><strong>([^<]+)<\/strong>/g)].map((m) => m[1])
  assert.deepEqual(names, ['All Pets', 'HQ', 'Water Cooler', 'Bender Bot', 'David Heinemeier Hansson'])
  assert.match(body, /<turbo-frame id="involvement_rooms_closed_3">\s*<form class="button_to" method="post" action="\/rooms\/3\/involvement\?involvement=mentions">/)
  assert.match(body, /class="btn invisible"/)
  assert.match(body, /<turbo-frame id="involvement_rooms_direct_6">\s*<form class="button_to" method="post" action="\/rooms\/6\/involvement\?involvement=nothing">/)
  assert.ok(body.indexOf('aria-label="Rooms"') < body.indexOf('<hr class="separator full-width">'))
  assert.ok(body.indexOf('<hr class="separator full-width">') < body.indexOf('aria-label="Pings"'))
})

test('saving name, email and bio changes them, says ✓ and keeps the password when it is left blank', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const digest = person(app, users.jz.id).password_digest
  const response = await update(app, cookie, { 'user[name]': '  JZ  ', 'user[email_address]': 'JZ@Example.com', 'user[password]': '', 'user[bio]': 'Designer.\nLikes type.' })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/users/me/profile')
  assert.deepEqual(flashOf(response), { notice: '✓' })
  const saved = person(app, users.jz.id)
  assert.equal(saved.name, 'JZ')
  assert.equal(saved.email_address, 'jz@example.com')
  assert.equal(saved.bio, 'Designer.\nLikes type.')
  assert.equal(saved.password_digest, digest)
  const page = await inject(app, cookie, { url: '/users/me/profile' })
  assert.match(page.body, /<textarea[^>]*id="user_bio"[^>]*>\nDesigner.\nLikes type.<\/textarea>/)
})

test('a new password is what signs in afterwards', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  assert.equal((await update(app, cookie, { 'user[password]': 'a much better password' })).statusCode, 302)
  const signInWith = (password: string) => app.inject({ method: 'POST', url: '/session', ...form({ email_address: users.kevin.email, password }) })
  assert.equal((await signInWith(PASSWORD)).statusCode, 401)
  assert.equal((await signInWith('a much better password')).statusCode, 302)
})

test('PUT and PATCH to another person’s profile change the signed-in person only', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  for (const method of ['PUT', 'PATCH'] as const) {
    const response = await inject(app, cookie, { method, url: `/users/${users.jason.id}/profile`, ...form({ 'user[bio]': `via ${method}` }) })
    assert.equal(response.statusCode, 302)
    assert.equal(person(app, users.jz.id).bio, `via ${method}`)
  }
  assert.equal(person(app, users.jason.id).bio, null)
})

test('saving the form unchanged changes nothing, so no cache moves', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const before = person(app, users.jz.id).updated_at
  await update(app, cookie, { 'user[name]': users.jz.name, 'user[email_address]': users.jz.email, 'user[password]': '', 'user[bio]': '' })
  assert.equal(person(app, users.jz.id).updated_at, before)
})

test('a bio over 200 characters, a blank name or a bad email re-renders the form with the message and what was typed', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const cases: [Record<string, string>, RegExp][] = [
    [{ 'user[name]': 'Typed Name', 'user[bio]': 'x'.repeat(201) }, /Your bio can be at most 200 characters\./],
    [{ 'user[name]': '   ', 'user[bio]': 'kept bio' }, /Please enter your name\./],
    [{ 'user[name]': 'Typed Name', 'user[email_address]': 'not-an-email' }, /Please enter a valid email address\./],
  ]
  for (const [fields, message] of cases) {
    const response = await update(app, cookie, fields)
    assert.equal(response.statusCode, 422)
    assert.match(response.body, /<p class="form__error txt-align-center" role="alert">/)
    assert.match(response.body, message)
    if (fields['user[bio]']) assert.ok(response.body.includes(`>\n${fields['user[bio]']}</textarea>`))
    if (fields['user[email_address]']) assert.match(response.body, /value="not-an-email"/)
  }
  assert.equal(person(app, users.jz.id).name, users.jz.name)
  assert.equal(person(app, users.jz.id).bio, null)
})

test('an email someone else has is a clear 422, in any case, and nothing changes', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  for (const email of [users.david.email, 'DAVID@37signals.com']) {
    const response = await update(app, cookie, { 'user[name]': 'Renamed', 'user[email_address]': email })
    assert.equal(response.statusCode, 422)
    assert.match(response.body, /Someone else already uses that email address\./)
    assert.match(response.body, /value="Renamed"/)
  }
  assert.equal(person(app, users.jz.id).name, users.jz.name)
  assert.equal(person(app, users.jz.id).email_address, users.jz.email)
})

test('objects where strings belong, a missing user and a bad _method are 400s that change nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const payloads = ['_method=patch&user[name][x]=1', '_method=patch&user[bio][]=a', '_method=patch&user=hello', '_method=patch', '_method=patch&user[email_address][$ne]=', '_method=bogus&user[name]=x', '_method[]=patch&user[name]=x']
  for (const payload of payloads) {
    const response = await inject(app, cookie, { method: 'POST', url: '/users/me/profile', payload, headers: { 'content-type': 'application/x-www-form-urlencoded', ...sameOrigin } })
    assert.equal(response.statusCode, 400, payload)
  }
  const json = await inject(app, cookie, { method: 'PATCH', url: '/users/me/profile', payload: { user: { name: ['a'] } }, headers: sameOrigin })
  assert.ok([400, 415].includes(json.statusCode), `JSON answered ${json.statusCode}`)
  assert.equal(person(app, users.jz.id).name, users.jz.name)
})

test('the profile has no new, edit, create or destroy', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  assert.equal((await inject(app, cookie, { url: '/users/me/profile/new' })).statusCode, 404)
  assert.equal((await inject(app, cookie, { url: '/users/me/profile/edit' })).statusCode, 404)
  assert.equal((await inject(app, cookie, { method: 'POST', url: '/users/me/profile', ...form({ 'user[name]': 'x' }) })).statusCode, 404)
  assert.equal((await inject(app, cookie, { method: 'POST', url: '/users/me/profile', ...form({ _method: 'delete' }) })).statusCode, 404)
  assert.equal(person(app, users.jz.id).name, users.jz.name)
})

test('the profile is for people who are signed in: sign-in first, and bots get 403', async (t) => {
  const { app } = await buildTestApp(t)
  const page = await app.inject({ url: '/users/me/profile' })
  assert.equal(page.statusCode, 302)
  assert.equal(page.headers.location, '/session/new')
  assert.equal((await app.inject({ method: 'POST', url: '/users/me/profile', ...form({ _method: 'patch', 'user[name]': 'x' }) })).statusCode, 401)
  const bot = await botCookie(app)
  assert.equal((await inject(app, bot, { url: '/users/me/profile' })).statusCode, 403)
  assert.equal((await update(app, bot, { 'user[name]': 'Hacked' })).statusCode, 403)
  assert.equal(person(app, users.bender.id).name, users.bender.name)
})

test('a rename shows on the next request of every cached page and fragment that shows the person', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const jason = await signIn(app, 'jason')
  const post = await inject(app, david, { method: 'POST', url: `/rooms/${rooms.hq.id}/messages`, ...form({ 'message[body]': 'Hello from David' }) })
  assert.equal(post.statusCode, 303)
  const pages = [`/rooms/${rooms.hq.id}`, `/rooms/${rooms.hq.id}/messages`, '/users/me/sidebar']
  for (const url of pages) {
    await inject(app, jason, { url })
    assert.match((await inject(app, jason, { url })).headers['server-timing'] as string, /page;desc="hit"|fragments;desc="hits=[1-9]/, url)
  }
  const sidebarBefore = (await inject(app, jason, { url: '/users/me/sidebar' })).body
  assert.equal((await update(app, david, { 'user[name]': 'Dee Aitch' })).statusCode, 302)
  for (const url of [`/rooms/${rooms.hq.id}`, `/rooms/${rooms.hq.id}/messages`]) {
    const body = (await inject(app, jason, { url })).body
    assert.match(body, /Dee Aitch/, url)
    assert.doesNotMatch(body, /David Heinemeier Hansson/, url)
  }
  const sidebar = (await inject(app, jason, { url: '/users/me/sidebar' })).body
  assert.notEqual(sidebar, sidebarBefore)
  assert.match(sidebar, /<span class="for-screen-reader">Ping with<\/span> Dee\b/)
  assert.doesNotMatch(sidebar, /Ping with<\/span> David\b/)
  assert.equal(value<number>(app, 'SELECT count(*) FROM users WHERE name = ?', 'Dee Aitch'), 1)
})

test('the install steps suit the browser: Home Screen on an iPhone, the address bar in Edge, the menu on Android, the Dock in Safari, none in desktop Firefox', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const page = async (ua: string) => (await inject(app, cookie, { url: '/users/me/profile', headers: { 'user-agent': ua } })).body
  const iphone = await page('Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1')
  assert.match(iphone, /<details class="pwa__instructions hide-in-pwa[^"]*" data-controller="pwa-install" data-pwa-install-prompting-class="pwa--can-install" data-install-steps="ios">/)
  assert.match(iphone, /Install Campfire as a web app\./)
  assert.match(iphone, /To receive push notifications in Safari on an iPhone, you must install Campfire as a web app\./)
  assert.match(iphone, /Tap <strong>Add to Home Screen<\/strong>/)
  assert.match(iphone, /data-action="pwa-install#promptInstall"><span class="icon icon--install" aria-hidden="true"><\/span><span>Install now<\/span><\/button>/)
  const edge = await page('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0')
  assert.match(edge, /data-install-steps="desktop-chromium"/)
  assert.match(edge, /App available<\/strong> at the end of Edge’s address bar/)
  const chrome = await page('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36')
  assert.match(chrome, /Install Campfire<\/strong> at the end of Chrome’s address bar/)
  const android = await page('Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36')
  assert.match(android, /<span class="for-screen-reader">More options<\/span><\/strong> menu button\.<\/li>\s*<li>Tap <strong>Install app<\/strong> in the menu\./)
  const safari = await page('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15')
  assert.match(safari, /Click <strong>Add to Dock…<\/strong>/)
  const firefox = await page('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0')
  assert.doesNotMatch(firefox, /pwa__instructions/)
})
