import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms } from '../../fixtures.ts'
import { accountRow, botCookie, get, send } from './support.ts'

const STYLES = ':root { --campfire-test: 7px; }'

test('an administrator edits custom styles in a textarea whose form has exactly one button', async (t) => {
  const { app } = await buildTestApp(t)
  app.store.writeNow((m) => m.db.prepare("UPDATE accounts SET custom_styles = 'body { color: red; }'").run())
  const response = await get(app, await signIn(app, 'david'), '/account/custom_styles/edit')
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<title>Custom styles<\/title>/)
  const form = response.body.slice(response.body.indexOf('<form'), response.body.indexOf('</form>'))
  assert.match(form, /action="http:\/\/localhost:80\/account\/custom_styles"/)
  assert.match(form, /data-controller="form" data-action="keydown.ctrl\+enter->form#submit keydown.meta\+enter->form#submit"/)
  assert.match(form, /<input type="hidden" name="_method" value="patch">/)
  assert.match(form, /<textarea name="account\[custom_styles\]" id="account_custom_styles"[^>]*>\nbody \{ color: red; \}<\/textarea>/)
  assert.equal(form.match(/<button/g)?.length, 1)
  assert.match(form, /Save changes/)
  assert.match(response.body, /<a class="btn" href="\/account\/edit">/, 'the way back leads to the account page')
})

test('members and bots get 403 for the custom styles page and its update; anonymous visitors are asked to sign in', async (t) => {
  const { app } = await buildTestApp(t)
  for (const cookie of [await signIn(app, 'kevin'), await botCookie(app)]) {
    assert.equal((await get(app, cookie, '/account/custom_styles/edit')).statusCode, 403)
    assert.equal((await send(app, cookie, 'PATCH', '/account/custom_styles', [['account[custom_styles]', STYLES]])).statusCode, 403)
  }
  assert.equal(accountRow(app).custom_styles, null)
  assert.equal((await app.inject({ url: '/account/custom_styles/edit' })).headers.location, '/session/new')
})

for (const [verb, fields] of [['PATCH', []], ['PUT', []], ['POST', [['_method', 'patch']]]] as ['PATCH' | 'PUT' | 'POST', [string, string][]][]) {
  test(`${verb} /account/custom_styles saves the styles, goes back to the form, and every page carries them`, async (t) => {
    const { app } = await buildTestApp(t)
    const admin = await signIn(app, 'david')
    const response = await send(app, admin, verb, '/account/custom_styles', [...fields, ['account[custom_styles]', STYLES]])
    assert.equal(response.statusCode, 302)
    assert.equal(response.headers.location, '/account/custom_styles/edit')
    assert.equal(accountRow(app).custom_styles, STYLES)
    const member = await signIn(app, 'kevin')
    for (const url of [`/rooms/${rooms.pets.id}`, '/account/edit', '/users/me/sidebar', '/searches']) {
      assert.ok((await get(app, member, url)).body.includes(`<style data-turbo-track="reload">${STYLES}</style>`), url)
    }
  })
}

test('cached pages whose shell carries the styles change as soon as the styles do', async (t) => {
  const { app } = await buildTestApp(t)
  const admin = await signIn(app, 'david')
  const member = await signIn(app, 'kevin')
  const pages = [`/rooms/${rooms.pets.id}`, '/users/me/sidebar']
  await send(app, admin, 'PATCH', '/account/custom_styles', [['account[custom_styles]', 'body { --first: 1; }']])
  for (const url of pages) {
    await get(app, member, url)
    const cached = await get(app, member, url)
    assert.match(String(cached.headers['server-timing']), /page;desc="hit"/, `${url} is served from the cache`)
    assert.ok(cached.body.includes('--first: 1'))
  }
  await send(app, admin, 'PATCH', '/account/custom_styles', [['account[custom_styles]', 'body { --second: 2; }']])
  for (const url of pages) {
    const body = (await get(app, member, url)).body
    assert.ok(body.includes('--second: 2') && !body.includes('--first: 1'), url)
  }
})

test('styles cannot close their style element and start markup', async (t) => {
  const { app } = await buildTestApp(t)
  const admin = await signIn(app, 'david')
  await send(app, admin, 'PATCH', '/account/custom_styles', [['account[custom_styles]', 'a { color: red } </STYLE><script>alert(1)</script>']])
  const page = (await get(app, admin, `/rooms/${rooms.pets.id}`)).body
  assert.ok(page.includes('<style data-turbo-track="reload">a { color: red } <\\/STYLE><script>alert(1)</script></style>'))
  assert.equal(page.match(/<\/style>/gi)?.length, 1)
})

test('empty styles are saved and leave no style element behind', async (t) => {
  const { app } = await buildTestApp(t)
  const admin = await signIn(app, 'david')
  await send(app, admin, 'PATCH', '/account/custom_styles', [['account[custom_styles]', STYLES]])
  await send(app, admin, 'PATCH', '/account/custom_styles', [['account[custom_styles]', '']])
  assert.equal(accountRow(app).custom_styles, '')
  assert.ok(!(await get(app, admin, `/rooms/${rooms.pets.id}`)).body.includes('<style data-turbo-track'))
})

test('styles over 100,000 characters answer 422 with the form keeping them; a form without them answers 400', async (t) => {
  const { app } = await buildTestApp(t)
  const admin = await signIn(app, 'david')
  const long = `/* ${'x'.repeat(100_000)} */`
  const refused = await send(app, admin, 'PATCH', '/account/custom_styles', [['account[custom_styles]', long]])
  assert.equal(refused.statusCode, 422)
  assert.match(refused.body, /role="alert">Custom styles can be up to 100,000 characters long\./)
  assert.ok(refused.body.includes(long))
  for (const fields of [[['custom_styles', STYLES]], [['account', STYLES]], [['account[custom_styles][]', STYLES]]] as [string, string][][]) {
    assert.equal((await send(app, admin, 'PATCH', '/account/custom_styles', fields)).statusCode, 400)
  }
  assert.equal(accountRow(app).custom_styles, null)
})
