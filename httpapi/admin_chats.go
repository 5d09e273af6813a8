package httpapi

import (
	"net/http"
	"strconv"

	"github.com/topupd/topupd"
)

// The messaging app's side of the admin API: one-time codes that link a
// chat to an account or an operator, an account's chats, and unlinking.

// createChatLink makes a one-time code that links a chat to the account.
func (a *admin) createChatLink(w http.ResponseWriter, r *http.Request) error {
	if err := readEmpty(r); err != nil {
		return err
	}
	l, err := a.Service.ChatLink(r.Context(), a.actor(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, chatLinkAnswer{Success: true, Code: l.Code, ExpiresAt: rfc3339(l.ExpiresAt), URL: l.URL})
	return nil
}

// readEmpty reads a body that must hold no fields (an empty one will do).
func readEmpty(r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	return obj.done()
}

// chatView is a linked chat as the admin API shows it.
type chatView struct {
	ChatID   int64  `json:"chatId"`
	Username string `json:"username"`
	LinkedAt string `json:"linkedAt"`
}

// chatsAnswer is an account's linked chats.
type chatsAnswer struct {
	Chats   []chatView `json:"chats"`
	Success bool       `json:"success"`
}

// listChats answers an account's linked chats, oldest link first.
func (a *admin) listChats(w http.ResponseWriter, r *http.Request) error {
	chats, err := a.Service.Chats(r.Context(), a.actor(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	out := make([]chatView, len(chats))
	for i, c := range chats {
		out[i] = chatView{ChatID: c.ChatID, Username: c.Username, LinkedAt: rfc3339(c.LinkedAt)}
	}
	writeJSON(w, http.StatusOK, chatsAnswer{Success: true, Chats: out})
	return nil
}

// unlinkChat removes one of the account's chats.
func (a *admin) unlinkChat(w http.ResponseWriter, r *http.Request) error {
	chatID, err := strconv.ParseInt(r.PathValue("chatId"), 10, 64)
	if err != nil {
		return topupd.Errorf(topupd.EInvalidRequest, "chatId: a chat's id is an integer")
	}
	if err := a.Service.UnlinkChat(r.Context(), a.actor(r), r.PathValue("id"), chatID); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, plainSuccess{Success: true})
	return nil
}
