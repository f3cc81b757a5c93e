package a2a

import "maps"

// Clone returns a copy of t that shares no slices or maps with it (part
// bytes and metadata values are treated as immutable and shared).
func (t *Task) Clone() *Task {
	if t == nil {
		return nil
	}
	c := *t
	c.Status = t.Status.clone()
	if t.Artifacts != nil {
		c.Artifacts = make([]Artifact, len(t.Artifacts))
		for i := range t.Artifacts {
			c.Artifacts[i] = t.Artifacts[i].clone()
		}
	}
	if t.History != nil {
		c.History = make([]Message, len(t.History))
		for i := range t.History {
			c.History[i] = *t.History[i].Clone()
		}
	}
	c.Metadata = maps.Clone(t.Metadata)
	return &c
}

func (s TaskStatus) clone() TaskStatus {
	c := s
	if s.Message != nil {
		c.Message = s.Message.Clone()
	}
	if s.Timestamp != nil {
		ts := *s.Timestamp
		c.Timestamp = &ts
	}
	return c
}

// Clone returns a copy of m that shares no slices or maps with it.
func (m *Message) Clone() *Message {
	if m == nil {
		return nil
	}
	c := *m
	c.Parts = cloneParts(m.Parts)
	c.Metadata = maps.Clone(m.Metadata)
	c.Extensions = append([]string(nil), m.Extensions...)
	c.ReferenceTaskIDs = append([]string(nil), m.ReferenceTaskIDs...)
	return &c
}

func (a Artifact) clone() Artifact {
	c := a
	c.Parts = cloneParts(a.Parts)
	c.Metadata = maps.Clone(a.Metadata)
	c.Extensions = append([]string(nil), a.Extensions...)
	return c
}

func cloneParts(ps []Part) []Part {
	if ps == nil {
		return nil
	}
	out := make([]Part, len(ps))
	for i, p := range ps {
		out[i] = p
		out[i].Metadata = maps.Clone(p.Metadata)
	}
	return out
}

// Clone returns a copy of the event that shares no slices or maps with it.
func (r *StreamResponse) Clone() StreamResponse {
	var c StreamResponse
	switch {
	case r.Task != nil:
		c.Task = r.Task.Clone()
	case r.Message != nil:
		c.Message = r.Message.Clone()
	case r.StatusUpdate != nil:
		su := *r.StatusUpdate
		su.Status = r.StatusUpdate.Status.clone()
		su.Metadata = maps.Clone(r.StatusUpdate.Metadata)
		c.StatusUpdate = &su
	case r.ArtifactUpdate != nil:
		au := *r.ArtifactUpdate
		au.Artifact = r.ArtifactUpdate.Artifact.clone()
		au.Metadata = maps.Clone(r.ArtifactUpdate.Metadata)
		c.ArtifactUpdate = &au
	}
	return c
}
